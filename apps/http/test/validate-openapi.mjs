// Validates an OpenAPI document read from standard input with @seriousme/openapi-schema-validator, which is ESM only
// (Jest's module system cannot load it): test/openapi.test.ts runs this file with node and reads the result it prints.
import { Validator } from '@seriousme/openapi-schema-validator';

let text = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) text += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(text));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));
