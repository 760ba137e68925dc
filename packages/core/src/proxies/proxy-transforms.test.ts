import fc from 'fast-check';
import { ExpressionEngine } from '../expressions';
import { ValidationError } from '../shared/errors';
import { CryptoRandomSource } from '../shared/random';
import type { CreateTokenInput } from '../tokens/create-token';
import type { ProxyTransform } from './proxy';
import { checkAppendedHeaders, type ProxyTransformInput, type TransformRules, validateTransforms } from './proxy-transforms';

const expressions = new ExpressionEngine({ random: new CryptoRandomSource() });
const NOW = new Date('2026-01-01T00:00:00.000Z');

/** The edge's reading of a create request, reduced to what these tests send (shape only, as zod checks it). */
function readTokenRequest(body: unknown): CreateTokenInput {
  const b = body as Record<string, unknown>;
  if (b.metadata !== undefined && (typeof b.metadata !== 'object' || b.metadata === null)) throw ValidationError.field('metadata', 'Expected an object.');
  return {
    type: b.type as string | undefined,
    data: b.data,
    containers: b.containers as string[] | undefined,
    metadata: b.metadata as Record<string, string> | undefined,
    searchIndexes: b.search_indexes as string[] | undefined,
    fingerprintExpression: b.fingerprint_expression as string | undefined,
    mask: b.mask,
    expiresAt: b.expires_at as string | undefined,
  };
}

const rules: TransformRules = { expressions, readTokenRequest, now: NOW };

function refusals(field: 'request_transforms' | 'response_transforms', input: readonly ProxyTransformInput[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  validateTransforms(rules, field, input, errors);
  return errors;
}

describe('append_header values, rendered at save as each call renders them', () => {
  const header = (value: string): ProxyTransform => ({ type: 'append_header', name: 'Authorization', value });
  const check = (value: string, configuration: Record<string, string>) => {
    const errors: Record<string, string[]> = {};
    checkAppendedHeaders(expressions, [header(value)], configuration, errors);
    return errors;
  };

  it('refuses a value naming a configuration key that is not set, wherever it stands in the text, and takes one naming only set keys', () => {
    const key = fc.constantFrom<string>('API_KEY', 'SECRET', 'ID', 'other.key', 'T-1');
    const literal = fc.stringMatching(/^[A-Za-z0-9 :=_-]{0,12}$/);
    const part = fc.oneof(literal.map((text) => ({ text })), key.map((k) => ({ key: k })));
    fc.assert(
      fc.property(fc.dictionary(key, fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/), { maxKeys: 5 }), fc.array(part, { minLength: 1, maxLength: 6 }), (configuration, parts) => {
        const value = parts.map((p) => ('text' in p ? p.text : `{{ configuration['${p.key}'] }}`)).join('');
        const expected = parts.map((p) => ('text' in p ? p.text : configuration[p.key])).join('');
        const names = parts.filter((p): p is { key: string } => 'key' in p).map((p) => p.key);
        const refused = Object.keys(check(value, configuration));
        if (names.some((k) => !Object.hasOwn(configuration, k))) return refused.join() === 'request_transforms[0].value';
        if (expected.trim() === '') return refused.join() === 'request_transforms[0].value';
        return refused.length === 0;
      }),
      { seed: 5, numRuns: 300 },
    );
  });

  it.each([
    ['Bearer {{ configuration.MISSING }}', { API_KEY: 'k' }],
    ['{{ configuration.MISSING | default: "x" }}', { API_KEY: 'k' }],
    ['{% if configuration.MISSING %}a{% endif %}b', { API_KEY: 'k' }],
    ['Bearer {{ configuration }}', { API_KEY: 'k' }],
    ['Bearer {{ configuration.API_KEY | split: "" }}', { API_KEY: 'k' }],
    ['Bearer {{ data }}', { API_KEY: 'k' }],
    ['Bearer {{ configuration.API_KEY.nested }}', { API_KEY: 'k' }],
    ['{{ configuration.API_KEY }}', { API_KEY: '' }],
  ])('refuses %j', (value, configuration) => {
    expect(Object.keys(check(value, configuration))).toEqual(['request_transforms[0].value']);
  });

  it('names no configuration value in its refusal', () => {
    const errors = check('{{ configuration[configuration.API_KEY] }}', { API_KEY: 'sk_live_secret' });
    expect(Object.keys(errors)).toEqual(['request_transforms[0].value']);
    expect(JSON.stringify(errors)).not.toContain('sk_live_secret');
  });

  it('takes set keys, filters and numbers', () => {
    for (const value of ['Bearer {{ configuration.API_KEY }}', 'Basic {{ configuration.ID | append: ":" | append: configuration.SECRET | base64_encode }}', 'n={{ configuration.ID | size }}']) {
      expect([value, check(value, { API_KEY: 'k', ID: 'i', SECRET: 's' })]).toEqual([value, {}]);
    }
  });
});

describe('append_header names', () => {
  it('refuses Expect and every hop-by-hop name, Proxy-* among them, in any case, naming the field', () => {
    const reserved = fc.oneof(
      fc.constantFrom('expect', 'connection', 'keep-alive', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade', 'proxy-connection', 'http2-settings', 'host', 'content-length'),
      fc.stringMatching(/^[a-z0-9-]{0,12}$/).map((rest) => `proxy-${rest}`),
    );
    fc.assert(
      fc.property(reserved, fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }), (name, upper) => {
        const cased = [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
        return Object.keys(refusals('request_transforms', [{ type: 'append_header', name: cased, value: 'x' }])).join() === 'request_transforms[0].name';
      }),
      { seed: 6, numRuns: 100 },
    );
    expect(refusals('request_transforms', [{ type: 'append_header', name: 'X-Expect', value: 'x' }])).toEqual({});
    expect(refusals('request_transforms', [{ type: 'append_header', name: 'X-Proxy-Foo', value: 'x' }])).toEqual({});
  });
});

describe('a tokenize transform token, checked at save as a create request without its data', () => {
  const tokenize = (token: Record<string, unknown>): ProxyTransformInput[] => [{ type: 'tokenize', matcher: '$.card.number', token }];

  it.each([
    [{ type: 'nope' }, ['request_transforms[0].token.type']],
    [{ type: 'card_number', containers: ['bad container'] }, ['request_transforms[0].token.containers[0]']],
    [{ type: 'card_number', containers: ['/pci/high/', '/pci/low/'] }, ['request_transforms[0].token.containers']],
    [{ type: 'card_number', expires_at: '2025-12-31T23:59:59Z' }, ['request_transforms[0].token.expires_at']],
    [{ type: 'card_number', expires_at: NOW.toISOString() }, ['request_transforms[0].token.expires_at']],
    [{ type: 'card_number', expires_at: 'tomorrow' }, ['request_transforms[0].token.expires_at']],
    [{ type: 'card_number', search_indexes: ['{{ data }}'] }, ['request_transforms[0].token.search_indexes']],
    [{ type: 'token', search_indexes: ['{{ data | nofilter }}'] }, ['request_transforms[0].token.search_indexes[0]']],
    [{ type: 'token', fingerprint_expression: '{{ data | nofilter }}' }, ['request_transforms[0].token.fingerprint_expression']],
    [{ type: 'token', mask: { a: '{{ data | nofilter }}' } }, ['request_transforms[0].token.mask.a']],
    [{ type: 'token', metadata: { ' ': 'v' } }, ['request_transforms[0].token.metadata']],
    // An unknown type has no containers to check them against; the other fields are still named.
    [{ type: 'nope', containers: ['bad container'], expires_at: '2020-01-01T00:00:00Z' }, ['request_transforms[0].token.expires_at', 'request_transforms[0].token.type']],
  ])('refuses %j naming %j', (token, fields) => {
    expect(Object.keys(refusals('request_transforms', tokenize(token))).sort()).toEqual([...fields].sort());
  });

  it('takes a token of any known type with valid fields and an expiry after the save', () => {
    const types = fc.constantFrom('token', 'card', 'bank', 'card_number', 'us_bank_account_number', 'us_bank_routing_number', 'social_security_number', 'employer_id_number');
    fc.assert(
      fc.property(types, fc.integer({ min: 1, max: 10 * 365 * 86_400_000 }), fc.constantFrom(undefined, ['/general/'], ['/pci/high/']), (type, ahead, containers) => {
        const token = { type, expires_at: new Date(NOW.getTime() + ahead).toISOString(), ...(containers ? { containers } : {}), metadata: { source: 'partner' } };
        return Object.keys(refusals('request_transforms', tokenize(token))).length === 0;
      }),
      { seed: 8, numRuns: 100 },
    );
  });
});
