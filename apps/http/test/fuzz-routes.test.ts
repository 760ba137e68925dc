import fc from 'fast-check';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { type Harness, applicationKey, as, harness } from './harness';

/**
 * Every route, attacked with seeded, bounded random input through the real app: hostile path ids, query strings,
 * bodies (arbitrary JSON, valid bodies with one field replaced by something hostile, broken JSON) and content types.
 * Whatever comes in:
 * - the answer is never a 5xx;
 * - every 4xx is problem+json whose status matches, and a 400 names at least one field (the replaced one, when a
 *   valid body had one field replaced);
 * - a 4xx changes nothing in the store;
 * - after a 2xx, the tenant still lists and searches everything it holds (a stored value that cannot be read back
 *   would break every page that holds it).
 */
const SEED = 20261123;
// Cases per route and store; SVC_FUZZ_RUNS=1000 for a deeper search (about 8 minutes).
const RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 60);
const IDEMPOTENCY_KEY = 'SVC-IDEMPOTENCY-KEY';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf'];

/** Text an attacker tries: prototype names, syntax of every language the vault parses, odd unicode, big and empty. */
const hostileText = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_NAMES,
    '', ' ', '\u0000', '\ud800', '\udc00', 'a\ud83dz', '😀', '\u202e', '\ufeff', 'é', 'NaN', 'null', 'true', '-0', '1e999',
    '{{ data }}', '{{ data, reveal_last: 4 }}', '{{ data | }}', '{{ data | nope }}', '{% for i in (1..99999999) %}x{% endfor %}',
    '{% include "x" %}', '{{', '}}', '{%', 'constructor:x', 'data:*', 'NOT', '(', ')', '"', '\\', '%', '%zz', '../..', '/',
    'a'.repeat(401), 'x'.repeat(5000), '2026-01-01T00:00:00Z', '1/2/2099', '2099-13-45', 'key_pvt_', 'SELECT 1;--',
    '$where', '{"$gt":""}', 'a\nb', 'a\r\nb', '/pci/', '/pci/*', 'card_number', 'token', 'private', 'management', 'reveal',
    'token:read', 'application:create', '00000000-0000-4000-8000-000000000000',
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** JSON values of every kind, hostile text in their strings and keys. */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, -(2 ** 31), 1e308, Number.MIN_VALUE),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileText, fc.constantFrom(...PROTOTYPE_NAMES)), tie('value'), { maxKeys: 4 }),
    fc.constant(Array.from({ length: 3 }).reduce<unknown>((inner) => [inner], 'deep')),
    fc.constant(JSON.parse(`${'['.repeat(40)}1${']'.repeat(40)}`) as unknown),
  ),
})).value;

/** A body as raw text: what the client puts on the wire. */
type Body = { readonly text: string; readonly replaced?: string; readonly pristine?: true };

/** A valid body with one field replaced (or added) by a hostile value; the field is what a 400 must name. */
function mutated(valid: Record<string, unknown>): fc.Arbitrary<Body> {
  const fields = [...Object.keys(valid), ...PROTOTYPE_NAMES, 'unknown_field'];
  return fc.tuple(fc.constantFrom(...fields), hostileJson).map(([field, value]) => ({
    // JSON.stringify writes lone surrogates as \u escapes, as a client would; a computed `__proto__` is an own key.
    text: JSON.stringify({ ...valid, [field]: value }),
    replaced: field,
  }));
}

const brokenJson = fc.constantFrom('{', '{"a":', '[1,]', 'nul', '"unterminated', '{"a":1}{"b":2}', '\ufeff{}', '\u0000', '{"a":"\\ud800"}', '{"__proto__":{"x":1}}', 'null', '[]', '"text"', '42', ' ');

function bodies(valid: Record<string, unknown>): fc.Arbitrary<Body> {
  return fc.oneof(
    { arbitrary: mutated(valid), weight: 6 },
    { arbitrary: hostileJson.map((value) => ({ text: JSON.stringify(value) ?? 'null' })), weight: 2 },
    { arbitrary: brokenJson.map((text) => ({ text })), weight: 1 },
    { arbitrary: fc.constant({ text: JSON.stringify(valid), pristine: true as const }), weight: 1 },
  );
}

/** Path segments: real ids, random text (percent-encoded as a client would), and raw broken encodings. */
function pathIds(real: readonly string[]): fc.Arbitrary<string> {
  const encoded = hostileText.map((text) => {
    try {
      return encodeURIComponent(text);
    } catch {
      return '%ED%A0%80';
    }
  });
  return fc.oneof(
    fc.constantFrom(...real, 'none').map(encodeURIComponent),
    encoded,
    fc.constantFrom('%', '%zz', '%E0%A4%A', '%ED%A0%80', '%00', '%2F', '..', '.', '%2e%2e', encodeURIComponent('a'.repeat(5000))),
  );
}

/** A query string of hostile keys and values, sometimes repeated, sometimes not encoded at all. */
function queries(known: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...known, 'metadata', 'metadata.k', 'metadata.', ...PROTOTYPE_NAMES), hostileText);
  const pair = fc.tuple(key, hostileText, fc.boolean()).map(([k, v, raw]) => {
    if (raw) return `${k.replace(/[&#\s]/g, '')}=${v.replace(/[&#\s]/g, '')}`;
    try {
      return `${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
    } catch {
      return `${k.length}=%ED%A0%80`;
    }
  });
  return fc.array(pair, { maxLength: 5 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', ''];

/** A valid webhook body (beyond.md §6). */
const WEBHOOK = { name: 'fuzz hook', url: 'https://hooks.example.com/in', events: ['token.created', 'application.deleted'], status: 'enabled', notify_email: 'ops@example.com' };
/** Once a tenant holds 50 webhooks, a create whose fields are all valid is a 400 naming the limit instead. */
const WEBHOOK_LIMIT = { name: ['webhooks'], url: ['webhooks'], events: ['webhooks'], status: ['webhooks'], notify_email: ['webhooks'] };

/** A valid pre-configured proxy body (beyond.md §7), every kind of transform but tokenize (which needs an application). */
const PROXY = {
  name: 'fuzz proxy',
  destination_url: 'https://processor.example.com/v1',
  request_transforms: [{ type: 'detokenize' }, { type: 'append_header', name: 'Authorization', value: 'Bearer {{ configuration.KEY }}' }],
  response_transforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{12,19}', replacement: '*' }],
  configuration: { KEY: 'sk_fuzz' },
  require_auth: true,
  timeout: 10,
  disable_detokenization: false,
};
/** Fields whose value decides whether another is valid; and a tenant holding 100 proxies names the limit instead. */
const PROXY_RELATED = {
  request_transforms: ['application_id', 'proxies'],
  application_id: ['proxies'],
  name: ['proxies'],
  destination_url: ['proxies'],
  response_transforms: ['proxies'],
  configuration: ['proxies'],
  require_auth: ['proxies'],
  timeout: ['proxies'],
  disable_detokenization: ['proxies'],
};

interface Fixture {
  readonly h: Harness;
  readonly mgt: string;
  readonly pvt: string;
  readonly pub: string;
  readonly tokenIds: string[];
  readonly victimApps: string[];
  /** A second key of each victim application, in the same order. */
  readonly victimKeys: string[];
  readonly invitationIds: string[];
  readonly memberIds: string[];
  readonly nonce: string;
  readonly intentIds: string[];
  /** Token intents the store gained (creates, puts back) minus those it lost (takes): a 4xx must leave it unchanged. */
  readonly intentsNet: { n: number };
  readonly webhookIds: string[];
  readonly proxyIds: string[];
}

async function fixture(): Promise<Fixture> {
  const h = await harness();
  const mgt = h.key;
  const tokenPermissions = [
    'token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use', 'session:authorize',
    'token:intent:create', 'token:intent:read', 'token:intent:delete',
  ];
  const pvt = await applicationKey(h, { name: 'fuzz', type: 'private', permissions: tokenPermissions });
  const pub = await applicationKey(h, { name: 'web', type: 'public', permissions: ['session:create', 'token:create'] });
  const api = as(h.app, pvt);
  const tokenIds: string[] = [];
  for (const body of [
    { type: 'token', data: { a: 1 }, metadata: { k: 'v' } },
    { type: 'card_number', data: '4242424242424242' },
    { type: 'social_security_number', data: '123-45-6789' },
    { type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' } },
  ]) {
    tokenIds.push((await api.post('/tokens').send(body).expect(201)).body.id as string);
  }
  const victimApps: string[] = [];
  for (const type of ['private', 'management']) {
    const res = await as(h.app, mgt).post('/applications').send({ name: `victim ${type}`, type, permissions: type === 'private' ? ['token:read'] : ['application:read'] }).expect(201);
    victimApps.push(res.body.id as string);
  }
  const victimKeys: string[] = [];
  for (const id of victimApps) victimKeys.push((await as(h.app, mgt).post(`/applications/${id}/keys`).expect(201)).body.id as string);
  const invitationIds = [(await as(h.app, mgt).post('/tenants/self/invitations').send({ email: 'ada@example.com' }).expect(201)).body.id as string];
  const memberIds = ((await as(h.app, mgt).get('/tenants/self/members').expect(200)).body.data as Array<{ id: string }>).map((m) => m.id);
  const nonce = (await as(h.app, pub).post('/sessions').expect(201)).body.nonce as string;
  const intentIds: string[] = [];
  for (const data of [{ number: '4242424242424242', cvc: '123' }, { number: '5555555555554444', expiration_month: 1, expiration_year: 2031 }]) {
    intentIds.push((await api.post('/token-intents').send({ type: 'card', data }).expect(201)).body.id as string);
  }
  // The port has no list: counting what goes in and out is how a snapshot sees an intent made or used by a 4xx.
  const intentsNet = { n: 0 };
  const intents = h.store.tokenIntents;
  const create = intents.create.bind(intents);
  const take = intents.take.bind(intents);
  Object.assign(intents, {
    create: async (intent: Parameters<typeof create>[0]) => {
      await create(intent);
      intentsNet.n++;
    },
    take: async (...args: Parameters<typeof take>) => {
      const taken = await take(...args);
      if (taken) intentsNet.n--;
      return taken;
    },
  });
  const webhookIds: string[] = [];
  for (const name of ['first hook', 'second hook']) {
    webhookIds.push((await as(h.app, mgt).post('/webhooks').send({ ...WEBHOOK, name }).expect(201)).body.id as string);
  }
  const proxyIds: string[] = [];
  for (const name of ['first proxy', 'second proxy']) {
    proxyIds.push((await as(h.app, mgt).post('/proxies').send({ ...PROXY, name }).expect(201)).body.id as string);
  }
  return { h, mgt, pvt, pub, tokenIds, victimApps, victimKeys, invitationIds, memberIds, nonce, intentIds, intentsNet, webhookIds, proxyIds };
}

/** A digest of everything the tenant's store holds, read through the store itself (sealed data included). */
async function snapshot(f: Fixture): Promise<string> {
  const { store, tenant } = f.h;
  const tenantId = tenant.tenant.id;
  const all = { page: 1, size: 100 };
  const far = new Date('2100-01-01T00:00:00Z');
  const state = {
    tokens: await store.tokens.search(tenantId, { kind: 'all' }, { page: 1, size: 1000 }, new Date(0)),
    liveTokens: (await store.tokens.search(tenantId, { kind: 'all' }, all, far)).total,
    applications: await store.applications.list(tenantId, {}, all),
    applicationKeys: await Promise.all((await store.applications.list(tenantId, {}, all)).items.map((a) => store.applications.listKeys(tenantId, a.id))),
    invitations: await store.invitations.list(tenantId, { now: far }, all),
    members: await store.members.list(tenantId, {}, all),
    intents: await Promise.all(f.intentIds.map((id) => store.tokenIntents.findById(tenantId, id, new Date(0)))),
    intentsNet: f.intentsNet.n,
    webhooks: await store.webhooks.list(tenantId, all),
    proxies: await store.proxies.list(tenantId, {}, all),
  };
  const text = JSON.stringify(state, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value));
  return createHash('sha256').update(text).digest('hex');
}

interface Route {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly key: (f: Fixture) => string | undefined;
  /** A valid body, when the route takes one. */
  readonly body?: (f: Fixture) => Record<string, unknown>;
  readonly contentType?: string;
  /** Real values for the route's `:id`. */
  readonly ids?: (f: Fixture) => string[];
  /** The name the route gives its `:id` in a 400 (default `id`). */
  readonly idField?: string;
  /** Fixed values for the route's other path parameters (`:application_id`), by name. */
  readonly params?: (f: Fixture) => Readonly<Record<string, string>>;
  /** The field a 400 names when a limit is reached: a pristine request may then be refused too. */
  readonly limitField?: string;
  readonly queryKeys?: readonly string[];
  /** Fields whose value decides whether another is valid: replacing the key may make a 400 name one of these. */
  readonly related?: Readonly<Record<string, readonly string[]>>;
  /** The invitation page a person opens: its errors are HTML pages for browsers (JSON clients get problem+json). */
  readonly page?: true;
  /** Tells apart two entries of one route in test names. */
  readonly label?: string;
}

const ROUTES: readonly Route[] = [
  {
    method: 'post',
    path: '/tokens',
    key: (f) => f.pvt,
    body: () => ({ id: '{{ data | alias_preserve_format }}', type: 'token', data: 'fuzz', metadata: { k: 'v' }, search_indexes: ['{{ data }}'], mask: '{{ data | reveal_last: 2 }}', containers: ['/general/'], expires_at: '2030-01-01T00:00:00Z' }),
    related: { data: ['mask', 'search_indexes', 'fingerprint_expression', 'id'], type: ['data', 'mask', 'search_indexes', 'containers', 'fingerprint_expression'] },
  },
  {
    method: 'post',
    path: '/tokens',
    key: (f) => f.pvt,
    body: () => ({ type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 }, deduplicate_token: true, fingerprint_expression: '{{ data.number }}' }),
    related: { data: ['mask', 'search_indexes', 'fingerprint_expression', 'id'], type: ['data', 'mask', 'search_indexes', 'containers', 'fingerprint_expression'] },
  },
  { method: 'post', path: '/tokens/search', key: (f) => f.pvt, body: () => ({ query: 'type:token AND metadata.k:v', page: 1, size: 10 }) },
  { method: 'get', path: '/tokens', key: (f) => f.pvt, queryKeys: ['id', 'type', 'page', 'size', 'metadata.k'] },
  { method: 'get', path: '/v2/tokens', key: (f) => f.pvt, queryKeys: ['type', 'container', 'fingerprint', 'start', 'size', 'metadata.k'] },
  { method: 'post', path: '/v2/tokens/search', key: (f) => f.pvt, body: () => ({ query: 'type:token AND metadata.k:v', start: null, size: 10 }) },
  {
    method: 'post',
    path: '/tokenize',
    key: (f) => f.pvt,
    body: () => ({ card: { type: 'card_number', data: '4242424242424242', metadata: { k: 'v' } }, name: 'Ada', list: ['x', 1, null, true] }),
    // Over SVC_TOKENIZE_LIMIT, the 400 names the body.
    related: { card: ['body'], name: ['body'], list: ['body'] },
  },
  {
    method: 'post',
    path: '/detokenize',
    key: (f) => f.pvt,
    body: (f) => ({ a: `{{ ${f.tokenIds[1]} }}`, b: `{{ token: ${f.tokenIds[0]} | json: '$.data' }}`, c: ['plain', 1, `x {{ ${f.tokenIds[2]} }} y`] }),
    related: { a: ['body'], b: ['body'], c: ['body'] },
  },
  { method: 'get', path: '/tokens/:id', key: (f) => f.pvt, ids: (f) => f.tokenIds },
  {
    method: 'patch',
    path: '/tokens/:id',
    key: (f) => f.pvt,
    // The generic token: the valid patch below is valid for its type.
    ids: (f) => [f.tokenIds[0]!],
    contentType: 'application/merge-patch+json',
    body: () => ({ data: { b: 2 }, metadata: { k: null, n: 'v' }, mask: '{{ data | stringify }}', containers: ['/general/x/'], expires_at: null, search_indexes: [], fingerprint_expression: '{{ data | stringify }}', deduplicate_token: false }),
    related: { data: ['mask', 'search_indexes', 'fingerprint_expression'] },
  },
  { method: 'delete', path: '/tokens/:id', key: (f) => f.pvt, ids: (f) => f.tokenIds },
  {
    method: 'post',
    path: '/token-intents',
    key: (f) => f.pvt,
    body: () => ({ type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' } }),
    related: { type: ['data'] },
  },
  { method: 'get', path: '/token-intents/:id', key: (f) => f.pvt, ids: (f) => f.intentIds },
  {
    method: 'post',
    path: '/tokens',
    key: (f) => f.pvt,
    label: 'from a token intent',
    // A token made from an intent. Once a 2xx has used the intent up, every later body is a 400 on token_intent_id.
    body: (f) => ({ type: 'card', token_intent_id: f.intentIds[1]!, metadata: { k: 'v' } }),
    related: { type: ['token_intent_id'], metadata: ['token_intent_id'], token_intent_id: ['data'] },
  },
  { method: 'delete', path: '/token-intents/:id', key: (f) => f.pvt, ids: (f) => f.intentIds },
  {
    method: 'post',
    path: '/applications',
    key: (f) => f.mgt,
    body: () => ({ name: 'made', type: 'private', permissions: ['token:read'], rules: [{ description: 'r', priority: 1, container: '/', transform: 'mask', permissions: ['token:read'] }], expires_at: '2030-01-01T00:00:00Z' }),
  },
  { method: 'get', path: '/applications', key: (f) => f.mgt, queryKeys: ['id', 'type', 'page', 'size'] },
  { method: 'get', path: '/applications/key', key: (f) => f.pvt },
  { method: 'get', path: '/applications/:id', key: (f) => f.mgt, ids: (f) => f.victimApps },
  // The private victim: the valid body below grants a token permission.
  { method: 'put', path: '/applications/:id', key: (f) => f.mgt, ids: (f) => [f.victimApps[0]!], body: () => ({ name: 'renamed', permissions: ['token:read'], rules: [] }) },
  { method: 'post', path: '/applications/:id/keys', key: (f) => f.mgt, ids: (f) => f.victimApps, body: () => ({}), limitField: 'keys' },
  { method: 'get', path: '/applications/:id/keys', key: (f) => f.mgt, ids: (f) => f.victimApps, queryKeys: ['id', 'type'] },
  // The first victim's keys, and a key of the second victim (absent under the first).
  { method: 'get', path: '/applications/:application_id/keys/:id', key: (f) => f.mgt, params: (f) => ({ application_id: f.victimApps[0]! }), ids: (f) => f.victimKeys, idField: 'key_id' },
  { method: 'delete', path: '/applications/:application_id/keys/:id', key: (f) => f.mgt, params: (f) => ({ application_id: f.victimApps[0]! }), ids: (f) => f.victimKeys, idField: 'key_id' },
  { method: 'post', path: '/applications/:id/regenerate', key: (f) => f.mgt, ids: (f) => f.victimApps, body: () => ({}) },
  { method: 'delete', path: '/applications/:id', key: (f) => f.mgt, ids: (f) => f.victimApps },
  { method: 'post', path: '/sessions', key: (f) => f.pub, body: () => ({}) },
  {
    method: 'post',
    path: '/sessions/authorize',
    key: (f) => f.pvt,
    body: (f) => ({ nonce: f.nonce, permissions: ['token:read'], rules: [{ priority: 1, conditions: [{ attribute: 'id', operator: 'equals', value: 'x' }], transform: 'reveal', permissions: ['token:read'] }], expires_at: '2026-01-01T01:00:00Z' }),
  },
  { method: 'get', path: '/tenants/self', key: (f) => f.mgt },
  { method: 'get', path: '/permissions', key: (f) => f.pvt, queryKeys: ['application_type'] },
  { method: 'get', path: '/tenants/self/members', key: (f) => f.mgt, queryKeys: ['user_id', 'page', 'size'] },
  { method: 'delete', path: '/tenants/self/members/:id', key: (f) => f.mgt, ids: (f) => f.memberIds },
  { method: 'post', path: '/tenants/self/invitations', key: (f) => f.mgt, body: () => ({ email: 'grace@example.com' }) },
  { method: 'post', path: '/tenants/self/invitations/:id/resend', key: (f) => f.mgt, ids: (f) => f.invitationIds, body: () => ({}) },
  { method: 'get', path: '/tenants/self/invitations', key: (f) => f.mgt, queryKeys: ['status', 'page', 'size'] },
  { method: 'get', path: '/tenants/self/invitations/:id', key: (f) => f.mgt, ids: (f) => f.invitationIds },
  { method: 'delete', path: '/tenants/self/invitations/:id', key: (f) => f.mgt, ids: (f) => f.invitationIds },
  { method: 'get', path: '/invitations/accept', key: () => undefined, queryKeys: ['token'], page: true },
  { method: 'post', path: '/invitations/accept', key: () => undefined, body: () => ({ token: 'not-a-real-token', first_name: 'Ada', last_name: 'L' }) },
  { method: 'post', path: '/webhooks', key: (f) => f.mgt, body: () => ({ ...WEBHOOK }), limitField: 'webhooks', related: WEBHOOK_LIMIT },
  { method: 'get', path: '/webhooks', key: (f) => f.mgt, queryKeys: ['page', 'size'] },
  { method: 'get', path: '/webhooks/event-types', key: (f) => f.mgt },
  { method: 'get', path: '/webhooks/:id', key: (f) => f.mgt, ids: (f) => f.webhookIds },
  { method: 'put', path: '/webhooks/:id', key: (f) => f.mgt, ids: (f) => f.webhookIds, body: () => ({ ...WEBHOOK, name: 'renamed hook', status: 'disabled' }) },
  { method: 'get', path: '/webhooks/:id/deliveries', key: (f) => f.mgt, ids: (f) => f.webhookIds, queryKeys: ['page', 'size'] },
  { method: 'delete', path: '/webhooks/:id', key: (f) => f.mgt, ids: (f) => f.webhookIds },
  { method: 'post', path: '/proxies', key: (f) => f.mgt, body: () => ({ ...PROXY }), limitField: 'proxies', related: PROXY_RELATED },
  { method: 'get', path: '/proxies', key: (f) => f.mgt, queryKeys: ['id', 'name', 'page', 'size'] },
  { method: 'get', path: '/proxies/:id', key: (f) => f.mgt, ids: (f) => f.proxyIds },
  { method: 'put', path: '/proxies/:id', key: (f) => f.mgt, ids: (f) => f.proxyIds, body: () => ({ ...PROXY, name: 'renamed proxy' }), related: PROXY_RELATED },
  {
    method: 'patch',
    path: '/proxies/:id',
    key: (f) => f.mgt,
    ids: (f) => f.proxyIds,
    contentType: 'application/merge-patch+json',
    body: () => ({ name: 'patched proxy', configuration: { KEY: 'sk_other' }, timeout: null }),
    related: PROXY_RELATED,
  },
  { method: 'delete', path: '/proxies/:id', key: (f) => f.mgt, ids: (f) => f.proxyIds },
  { method: 'get', path: '/logs', key: (f) => f.mgt, queryKeys: ['entity_type', 'entity_id', 'start_date', 'end_date', 'page', 'size'] },
  { method: 'get', path: '/logs/entity-types', key: (f) => f.mgt },
  // The API's description and its page: no key, the same answer whatever the query or body.
  { method: 'get', path: '/openapi.json', key: () => undefined },
  { method: 'get', path: '/docs', key: () => undefined },
  // The operator console's page: no key either.
  { method: 'get', path: '/console', key: () => undefined },
];

/** What one generated request looks like. */
interface Attempt {
  readonly id: string;
  readonly query: string;
  readonly body?: Body;
  readonly contentType: string;
  readonly keyed: boolean;
  /** An SVC-IDEMPOTENCY-KEY (beyond.md §4): a few reused ones (replays, 422s) or any string (400 when malformed). */
  readonly idempotencyKey?: string;
}

function attempts(route: Route, f: Fixture): fc.Arbitrary<Attempt> {
  const valid = route.body?.(f);
  const contentType = route.contentType ?? 'application/json';
  return fc.record({
    id: route.ids ? pathIds(route.ids(f)) : fc.constant(''),
    query: route.queryKeys ? queries(route.queryKeys) : fc.oneof({ arbitrary: fc.constant(''), weight: 4 }, queries([])),
    body: valid ? bodies(valid) : fc.option(bodies({}), { nil: undefined, freq: 4 }),
    contentType: fc.oneof({ arbitrary: fc.constant(contentType), weight: 8 }, fc.constantFrom(...CONTENT_TYPES)),
    // Mostly the route's key; sometimes none, which must be a 401 that changes nothing.
    keyed: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, fc.constant(false)),
    idempotencyKey: fc.option(fc.oneof({ arbitrary: fc.constantFrom('fuzz-1', 'fuzz-2'), weight: 3 }, fc.string({ maxLength: 300 }), fc.constant('a\tb')), { nil: undefined, freq: 3 }),
  });
}

async function send(f: Fixture, route: Route, attempt: Attempt): Promise<request.Response> {
  const params = Object.entries(route.params?.(f) ?? {});
  const path = params.reduce((at, [name, value]) => at.replace(`:${name}`, encodeURIComponent(value)), route.path);
  const url = path.replace(':id', attempt.id) + attempt.query;
  let req = request(f.h.app)[route.method](url);
  const key = route.key(f);
  if (key && attempt.keyed) req = req.set('SVC-API-KEY', key);
  if (attempt.idempotencyKey !== undefined) req = req.set(IDEMPOTENCY_KEY, attempt.idempotencyKey);
  if (attempt.body !== undefined) {
    if (attempt.contentType) req = req.set('Content-Type', attempt.contentType);
    req = req.send(attempt.body.text);
  }
  return req;
}

function checkProblem(res: request.Response, route: Route, attempt: Attempt): void {
  // A string body without a Content-Type goes out as a form (superagent's default), which the accept page answers.
  const form = route.path === '/invitations/accept' && ['application/x-www-form-urlencoded', ''].includes(attempt.contentType);
  if ((route.page || form) && /^text\/html/.test(String(res.headers['content-type']))) return;
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(res.text) as { status: number; type: string; title: string; errors?: Record<string, unknown> };
  expect(problem.status).toBe(res.status);
  expect(typeof problem.type).toBe('string');
  expect(typeof problem.title).toBe('string');
  if (res.status !== 400) return;
  const errors = problem.errors ?? {};
  expect(Object.keys(errors).length).toBeGreaterThan(0);
  for (const messages of Object.values(errors)) {
    expect(Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string')).toBe(true);
  }
  // A malformed idempotency key: the 400 names the header, whatever else is wrong.
  if (attempt.idempotencyKey !== undefined && Object.hasOwn(errors, IDEMPOTENCY_KEY)) return;
  // Only the path is hostile: the 400 names the path parameter.
  const pristine = attempt.body === undefined || attempt.body.pristine === true;
  if (pristine && route.ids && attempt.query === '') {
    const named = [route.idField ?? 'id', ...(route.limitField ? [route.limitField] : [])];
    expect({ errors, named: Object.keys(errors).some((k) => named.includes(k)) }).toEqual({ errors, named: true });
  }
  // A valid body with one field replaced: the 400 names that field (or a path inside it), unless something else
  // the request carries (path, query, media type) was already wrong.
  const replaced = attempt.body?.replaced;
  if (replaced === undefined || attempt.query !== '' || !attempt.id.match(/^[\w.~-]*$/)) return;
  const fields = [replaced, ...(route.related && Object.hasOwn(route.related, replaced) ? route.related[replaced]! : [])];
  const named = Object.keys(errors).some((k) => fields.some((f) => k === f || k.startsWith(`${f}.`) || k.startsWith(`${f}[`)));
  expect({ replaced, named, errors }).toEqual({ replaced, named: true, errors });
}

/** Every list of the tenant, read in full: each must answer 200. */
async function readsBack(f: Fixture): Promise<void> {
  const pvt = as(f.h.app, f.pvt);
  const mgt = as(f.h.app, f.mgt);
  const answers = await Promise.all([
    pvt.get('/tokens?size=100'),
    pvt.post('/tokens/search').send({ query: '', size: 100 }),
    mgt.get('/applications?size=100'),
    mgt.get('/tenants/self/invitations?size=100'),
    mgt.get('/tenants/self/members?size=50'),
    mgt.get('/webhooks?size=50'),
    mgt.get('/proxies?size=100'),
    pvt.get('/v2/tokens?size=100'),
    pvt.post('/v2/tokens/search').send({ query: '', size: 100 }),
  ]);
  const items = answers.flatMap((res) => (res.status === 200 ? (res.body.data as Array<{ id: string }>) : []));
  expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200]);
  const tokens = answers[0]!.body.data as Array<{ id: string }>;
  for (const token of tokens.slice(0, 3)) expect((await pvt.get(`/tokens/${encodeURIComponent(token.id)}`)).status).toBe(200);
  // The cursor lists show the same tokens as the numbered one.
  const byCursor = (answers[7]!.body.data as Array<{ id: string }>).map((t) => t.id);
  expect(byCursor).toEqual(tokens.map((t) => t.id));
  expect(items.length).toBeGreaterThan(0);
}

describe('every route under random hostile input', () => {
  let f: Fixture;

  beforeAll(async () => {
    f = await fixture();
  });

  it.each(ROUTES.map((route, i) => [`${route.method.toUpperCase()} ${route.path}${route.label ? ` (${route.label})` : route.body && i === 1 ? ' (card)' : ''}`, route] as const))(
    '%s: never a 5xx; every 4xx is problem+json naming what is wrong, and changes nothing',
    async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(attempts(route, f), async (attempt) => {
          const before = await snapshot(f);
          const res = await send(f, route, attempt);
          expect({ status: res.status, body: res.status >= 500 ? res.text : '' }).toEqual({ status: expect.any(Number), body: '' });
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) {
            checkProblem(res, route, attempt);
            expect(await snapshot(f)).toBe(before);
          } else {
            await readsBack(f);
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    },
    60_000,
  );
});

type Path = ReadonlyArray<string | number>;

/** Every place in a JSON value: each leaf and each container, with its path. */
function places(value: unknown, path: Path = []): Array<{ path: Path; value: unknown }> {
  const here = [{ path, value }];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, i) => places(item, [...path, i]))];
  if (typeof value === 'object' && value !== null) return [...here, ...Object.entries(value).flatMap(([k, v]) => places(v, [...path, k]))];
  return here;
}

function replaceAt(value: unknown, path: Path, replacement: (old: unknown) => unknown): unknown {
  if (path.length === 0) return replacement(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? replaceAt(item, rest, replacement) : item));
  const record = value as Record<string, unknown>;
  return { ...record, [head!]: replaceAt(record[head!], rest, replacement) };
}

/** `['rules', 0, 'permissions']` → `rules[0].permissions`, as problem documents name fields. */
const fieldName = (path: Path): string => path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');

/**
 * Deterministic sweeps over every field of every route's valid body, so no field is left to chance: a lone surrogate
 * in any string is a 400 naming exactly that field; prototype names as keys of any object, and every JSON kind in
 * place of any value, are never a 5xx, and a 4xx changes nothing.
 */
describe('every field of every body', () => {
  let f: Fixture;

  beforeAll(async () => {
    f = await fixture();
  });

  const bodied = ROUTES.filter((route) => route.body);

  it.each(bodied.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    '%s: a lone surrogate in any string is a 400 naming that field, and stores nothing',
    async (_name, route) => {
      const valid = route.body!(f);
      const id = route.ids ? encodeURIComponent(route.ids(f)[0]!) : '';
      for (const { path, value } of places(valid)) {
        if (typeof value !== 'string') continue;
        for (const broken of [`${value}\ud800`, `\udc00${value}`]) {
          const body = { text: JSON.stringify(replaceAt(valid, path, () => broken)) };
          const before = await snapshot(f);
          const res = await send(f, route, { id, query: '', body, contentType: route.contentType ?? 'application/json', keyed: true });
          expect({ field: fieldName(path), status: res.status, errors: Object.keys(res.body.errors ?? {}) }).toEqual({ field: fieldName(path), status: 400, errors: [fieldName(path)] });
          expect(await snapshot(f)).toBe(before);
        }
      }
    },
    60_000,
  );

  const REPLACEMENTS: readonly unknown[] = [null, [], {}, '', -1, 1e308, true, '\u0000', 'x'.repeat(3000), '{{ data, x }}', '__proto__', 'constructor'];
  const KEYS = ['__proto__', 'constructor', 'toString'];

  it.each(bodied.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    '%s: any JSON kind in place of any value, and prototype names as keys of any object, are never a 5xx',
    async (_name, route) => {
      const valid = route.body!(f);
      const id = route.ids ? encodeURIComponent(route.ids(f)[0]!) : '';
      const variants: Body[] = [];
      for (const { path, value } of places(valid)) {
        for (const replacement of REPLACEMENTS) variants.push({ text: JSON.stringify(replaceAt(valid, path, () => replacement)) });
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          for (const name of KEYS) {
            variants.push({ text: JSON.stringify(replaceAt(valid, path, (old) => ({ ...(old as object), [name]: 'x' }))) });
          }
        }
      }
      for (const body of variants) {
        const before = await snapshot(f);
        const attempt = { id, query: '', body, contentType: route.contentType ?? 'application/json', keyed: true };
        const res = await send(f, route, attempt);
        expect({ body: body.text, status: res.status < 500 ? 'not 5xx' : res.status }).toEqual({ body: body.text, status: 'not 5xx' });
        if (res.status >= 400) {
          checkProblem(res, route, attempt);
          expect(await snapshot(f)).toBe(before);
        } else {
          await readsBack(f);
        }
      }
    },
    60_000,
  );
});

