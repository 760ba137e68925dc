import type { ExpressionEngine } from '../expressions';
import { collectFieldErrors } from '../shared/errors';
import type { CreateTokenInput } from '../tokens/create-token';
import { parseTokenExpiry } from '../tokens/token-expiry';
import { resolveContainers, resolveSearchIndexes, validateMetadata } from '../tokens/token-fields';
import { isTokenTypeName, tokenType } from '../tokens/token-types';

/**
 * A tokenize transform's token, checked when the proxy is saved by the rules CreateToken.prepare applies to a create
 * request, all but those about the data (which comes from each call's body): a known type, its metadata, containers,
 * search indexes and an expiry in the future, with the same functions; the mask, fingerprint and search index
 * expressions, which need the data to be evaluated, are read for syntax. Otherwise every call would fail, blaming its
 * caller's body for the proxy's template. Field names are the request's (`containers[0]`, `expires_at`); every broken
 * field is named.
 */
export function tokenTemplateErrors(expressions: ExpressionEngine, input: CreateTokenInput, now: Date): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const check = (run: () => unknown): void => void collectFieldErrors(errors, run);
  if (input.type === undefined) errors.type = ['Type is required.'];
  else if (!isTokenTypeName(input.type)) errors.type = ['Unknown token type.'];
  else {
    const type = tokenType(input.type);
    check(() => resolveContainers(type, input.containers));
    check(() => resolveSearchIndexes(type, input.searchIndexes));
  }
  check(() => validateMetadata(input.metadata));
  input.searchIndexes?.forEach((expression, i) => check(() => expressions.check(`search_indexes[${i}]`, expression)));
  if (input.fingerprintExpression !== undefined) check(() => expressions.check('fingerprint_expression', input.fingerprintExpression!));
  if (input.mask !== undefined && input.mask !== null) checkMaskSyntax(expressions, input.mask, 'mask', check);
  if (input.expiresAt !== undefined) check(() => parseTokenExpiry(input.expiresAt!, now));
  return errors;
}

/** Each template of a mask (a string, or an object or list of them, as evaluateMask walks it) read for syntax. */
function checkMaskSyntax(expressions: ExpressionEngine, mask: unknown, field: string, check: (run: () => unknown) => void): void {
  if (typeof mask === 'string') check(() => expressions.check(field, mask));
  else if (Array.isArray(mask)) mask.forEach((m, i) => checkMaskSyntax(expressions, m, `${field}[${i}]`, check));
  else if (typeof mask === 'object' && mask !== null) {
    for (const [key, m] of Object.entries(mask)) checkMaskSyntax(expressions, m, `${field}.${key}`, check);
  }
}
