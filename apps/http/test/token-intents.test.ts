import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BasisTheoryClient } from '@basis-theory/node-sdk';
import type { CreateTenant } from '@svc/core';
import { FixedClock } from '@svc/core/testing';
import { openSqliteStore } from '@svc/sqlite';
import request from 'supertest';
import { loadConfig } from '../src/config/load-config';
import { buildContainer } from '../src/container';
import { createApp } from '../src/http/app';
import { Logger } from '../src/logger';
import { TOKENS } from '../src/tokens';
import { applicationKey, as, harness, type Harness, privateKey } from './harness';

const NUMBER = '4242424242424242';
const CVC = '987';
const CARD = { number: NUMBER, expiration_month: 12, expiration_year: 2030, cvc: CVC };
const BANK = { routing_number: '021000021', account_number: '1234567890123' };
const FAR = new Date('2100-01-01T00:00:00.000Z');

const INTENT_PERMISSIONS = ['token:intent:create', 'token:intent:read', 'token:intent:delete'];

/** How many intents the store holds, live or expired: counted by erasing them all, so a test asks last. */
async function intentsHeld(h: Harness): Promise<number> {
  return h.store.tokenIntents.deleteExpired(FAR);
}

describe('token intents over HTTP', () => {
  let h: Harness;
  let backend: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    backend = as(h.app, await privateKey(h, ...INTENT_PERMISSIONS, 'token:create', 'token:read', 'token:search', 'token:use', 'session:authorize'));
  });

  const createIntent = async (body: object = { type: 'card', data: CARD }) => (await backend.post('/token-intents').send(body).expect(201)).body;

  describe('create', () => {
    it('keeps a card and answers its bin, last 4, expiry and brand, never its number or cvc', async () => {
      const res = await backend.post('/token-intents').send({ type: 'card', data: CARD }).expect(201);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'card',
        tenant_id: h.tenant.tenant.id,
        fingerprint: expect.any(String),
        created_by: expect.any(String),
        created_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-01-02T00:00:00.000Z',
        card: { bin: '424242', last4: '4242', expiration_month: 12, expiration_year: 2030, brand: 'visa', funding: 'unknown' },
      });
      expect(res.text).not.toContain(NUMBER);
      expect(res.text).not.toContain(`"${CVC}"`);
      expect(res.text).not.toContain('cvc');
    });

    it('gives the fingerprint a token of the same data has, and records the creating application', async () => {
      const intent = await createIntent();
      const token = (await backend.post('/tokens').send({ type: 'card', data: { number: NUMBER } }).expect(201)).body;
      expect(intent.fingerprint).toBe(token.fingerprint);
      expect(intent.created_by).toBe(token.created_by);
      const bank = await createIntent({ type: 'bank', data: BANK });
      const bankToken = (await backend.post('/tokens').send({ type: 'bank', data: BANK }).expect(201)).body;
      expect(bank.fingerprint).toBe(bankToken.fingerprint);
      expect(bank.fingerprint).not.toBe(intent.fingerprint);
    });

    it('keeps a bank account and answers its routing number and the last 4 of the account', async () => {
      const res = await backend.post('/token-intents').send({ type: 'bank', data: BANK }).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        type: 'bank',
        tenant_id: h.tenant.tenant.id,
        fingerprint: expect.any(String),
        created_by: expect.any(String),
        created_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-01-02T00:00:00.000Z',
        bank: { routing_number: '021000021', account_number_last4: '0123' },
      });
      expect(res.text).not.toContain(BANK.account_number);
    });

    it.each([
      ['5555555555554444', 'mastercard', '555555'],
      ['2223003122003222', 'mastercard', '222300'],
      ['378282246310005', 'american-express', '378282'],
      ['6011111111111117', 'discover', '601111'],
      ['3566002020360505', 'jcb', '356600'],
      ['6062826786276634', 'hipercard', '606282'],
      ['9999999999999995', 'unknown', '999999'],
    ])('reads the brand of %s as %s', async (number, brand, bin) => {
      const res = await backend.post('/token-intents').send({ type: 'card', data: { number } }).expect(201);
      expect(res.body.card).toEqual({ bin, last4: number.slice(-4), brand, funding: 'unknown' });
    });

    it.each([
      ['a card without a number', { type: 'card', data: { expiration_month: 1 } }, 'data.number'],
      ['a number failing Luhn', { type: 'card', data: { number: '4242424242424241' } }, 'data.number'],
      ['a number with separators', { type: 'card', data: { number: '4242 4242 4242 4242' } }, 'data.number'],
      ['a month of 13', { type: 'card', data: { number: NUMBER, expiration_month: 13 } }, 'data.expiration_month'],
      ['a two-digit year', { type: 'card', data: { number: NUMBER, expiration_year: 30 } }, 'data.expiration_year'],
      ['a cvc of letters', { type: 'card', data: { number: NUMBER, cvc: 'abc' } }, 'data.cvc'],
      ['an attribute cards do not have', { type: 'card', data: { number: NUMBER, colour: 'red' } }, 'data.colour'],
      ['card data that is not an object', { type: 'card', data: NUMBER }, 'data'],
      ['no data', { type: 'card' }, 'data'],
      ['a routing number failing its checksum', { type: 'bank', data: { ...BANK, routing_number: '021000022' } }, 'data.routing_number'],
      ['an account number too long', { type: 'bank', data: { ...BANK, account_number: '1'.repeat(18) } }, 'data.account_number'],
      ['a type intents do not hold', { type: 'card_number', data: NUMBER }, 'type'],
      ['an unknown type', { type: 'passport', data: 'x' }, 'type'],
      ['no type', { data: CARD }, 'type'],
      ['a type that is not a string', { type: 1, data: CARD }, 'type'],
      ["the SDK's encrypted payload, which svc does not serve", { type: 'card', encrypted: 'eyJ...' }, 'encrypted'],
      ['an unknown field', { type: 'card', data: CARD, containers: ['/pci/'] }, 'containers'],
    ])('refuses %s with a 400 naming the field, storing nothing', async (_case, body, field) => {
      const res = await backend.post('/token-intents').send(body).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Object.keys(res.body.errors)).toContain(field);
      expect(res.text).not.toContain('424242424242424');
      expect(await intentsHeld(h)).toBe(0);
    });

    it('refuses a body that is not JSON, or none', async () => {
      await backend.post('/token-intents').set('Content-Type', 'text/plain').send('x').expect(415);
      const none = await backend.post('/token-intents').expect(400);
      expect(Object.keys(none.body.errors)).toEqual(['body']);
    });
  });

  describe('who may', () => {
    it('lets a public key create intents, but not read or delete them', async () => {
      const pub = as(h.app, await applicationKey(h, { name: 'web', type: 'public', permissions: ['token:intent:create'] }));
      const created = (await pub.post('/token-intents').send({ type: 'card', data: CARD }).expect(201)).body;
      await pub.get(`/token-intents/${created.id}`).expect(403);
      await pub.delete(`/token-intents/${created.id}`).expect(403);
      await backend.get(`/token-intents/${created.id}`).expect(200);
      const refused = await as(h.app, h.key).post('/applications').send({ name: 'p', type: 'public', permissions: ['token:intent:read'] }).expect(400);
      expect(Object.keys(refused.body.errors)).toEqual(['permissions[0]']);
    });

    it('needs each permission, and a key at all', async () => {
      const tokensOnly = as(h.app, await privateKey(h, 'token:create', 'token:read'));
      await tokensOnly.post('/token-intents').send({ type: 'card', data: CARD }).expect(403);
      await as(h.app, h.key).post('/token-intents').send({ type: 'card', data: CARD }).expect(403);
      const id = (await createIntent()).id;
      await tokensOnly.get(`/token-intents/${id}`).expect(403);
      await tokensOnly.delete(`/token-intents/${id}`).expect(403);
      const readOnly = as(h.app, await privateKey(h, 'token:intent:read'));
      await readOnly.delete(`/token-intents/${id}`).expect(403);
      await request(h.app).post('/token-intents').send({ type: 'card', data: CARD }).expect(401);
      await request(h.app).get(`/token-intents/${id}`).expect(401);
      expect(await intentsHeld(h)).toBe(1);
    });

    it('answers 403 before it reads the body, so a caller without the permission learns nothing from validation', async () => {
      const tokensOnly = as(h.app, await privateKey(h, 'token:create'));
      const res = await tokensOnly.post('/token-intents').send({ type: 'card', data: { number: '1' } }).expect(403);
      expect(res.body.errors).toBeUndefined();
    });

    it('lets a session granted token:intent:create make intents, recorded as its public application', async () => {
      const pub = await as(h.app, h.key).post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create'] }).expect(201);
      const session = (await as(h.app, pub.body.key).post('/sessions').expect(201)).body;
      const browser = as(h.app, session.session_key);
      await browser.post('/token-intents').send({ type: 'card', data: CARD }).expect(403);
      await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:intent:create'] }).expect(200);
      const created = (await browser.post('/token-intents').send({ type: 'card', data: CARD }).expect(201)).body;
      expect(created.created_by).toBe(pub.body.id);
      await browser.get(`/token-intents/${created.id}`).expect(403);
      await browser.post('/tokens').send({ type: 'token', data: 'x' }).expect(403);
    });

    it('lets a session be granted only the intent permission a public application may hold, by a key that holds it', async () => {
      const pub = await as(h.app, h.key).post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create'] }).expect(201);
      const open = async () => (await as(h.app, pub.body.key).post('/sessions').expect(201)).body as { nonce: string };
      const refused = await backend.post('/sessions/authorize').send({ nonce: (await open()).nonce, permissions: ['token:intent:read'] }).expect(400);
      expect(Object.keys(refused.body.errors)).toEqual(['permissions[0]']);
      const withoutIt = as(h.app, await privateKey(h, 'token:create', 'session:authorize'));
      await withoutIt.post('/sessions/authorize').send({ nonce: (await open()).nonce, permissions: ['token:intent:create'] }).expect(403);
      // A key whose token access comes from rules still grants the intent permission it holds itself.
      const ruled = await applicationKey(h, {
        name: 'ruled',
        type: 'private',
        permissions: ['token:intent:create', 'session:authorize'],
        rules: [{ description: 'pci', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:create'] }],
      });
      await as(h.app, ruled).post('/sessions/authorize').send({ nonce: (await open()).nonce, permissions: ['token:intent:create'] }).expect(200);
    });
  });

  describe('read and delete', () => {
    it('reads an intent as it was created, then deletes it for good', async () => {
      const created = await createIntent();
      const read = await backend.get(`/token-intents/${created.id}`).expect(200);
      expect(read.body).toEqual(created);
      expect(read.text).not.toContain(NUMBER);
      const deleted = await backend.delete(`/token-intents/${created.id}`).expect(204);
      expect(deleted.text).toBe('');
      const gone = await backend.get(`/token-intents/${created.id}`).expect(404);
      expect(gone.headers['content-type']).toMatch(/^application\/problem\+json/);
      await backend.delete(`/token-intents/${created.id}`).expect(404);
      expect(await intentsHeld(h)).toBe(0);
    });

    it('answers 404 for an unknown id', async () => {
      await backend.get('/token-intents/00000000-0000-4000-8000-000000000000').expect(404);
      await backend.delete('/token-intents/nope').expect(404);
    });

    it("answers another tenant's intent exactly as an unknown one, and leaves it alone", async () => {
      const created = await createIntent();
      const other = await h.createTenant('Other');
      const otherKey = await applicationKey({ ...h, key: other.management.key }, { name: 'o', type: 'private', permissions: [...INTENT_PERMISSIONS, 'token:create'] });
      const foreign = as(h.app, otherKey);
      const unknown = await foreign.get('/token-intents/00000000-0000-4000-8000-000000000000').expect(404);
      const theirs = await foreign.get(`/token-intents/${created.id}`).expect(404);
      expect({ ...theirs.body, instance: undefined }).toEqual({ ...unknown.body, instance: undefined });
      await foreign.delete(`/token-intents/${created.id}`).expect(404);
      const conversion = await foreign.post('/tokens').send({ token_intent_id: created.id }).expect(400);
      expect(Object.keys(conversion.body.errors)).toEqual(['token_intent_id']);
      await backend.get(`/token-intents/${created.id}`).expect(200);
    });
  });

  describe('becoming a token', () => {
    it('makes a token of its type from its data without the cvc, and is gone afterwards', async () => {
      const intent = await createIntent();
      const res = await backend.post('/tokens').send({ token_intent_id: intent.id }).expect(201);
      expect(res.body).toMatchObject({ type: 'card', data: { number: NUMBER, expiration_month: 12, expiration_year: 2030 }, fingerprint: intent.fingerprint, containers: ['/pci/high/'] });
      expect(res.body.data.cvc).toBeUndefined();
      const stored = (await backend.get(`/tokens/${res.body.id}`).expect(200)).body;
      expect(stored.data).toEqual({ number: NUMBER, expiration_month: 12, expiration_year: 2030 });
      await backend.get(`/token-intents/${intent.id}`).expect(404);
      const again = await backend.post('/tokens').send({ token_intent_id: intent.id }).expect(400);
      expect(Object.keys(again.body.errors)).toEqual(['token_intent_id']);
    });

    it("takes the token request's other fields, and accepts the intent's own type", async () => {
      const intent = await createIntent({ type: 'bank', data: BANK });
      const res = await backend
        .post('/tokens')
        .send({ type: 'bank', token_intent_id: intent.id, metadata: { customer: 'c-1' }, containers: ['/bank/customers/'], id: 'bank-of-c-1' })
        .expect(201);
      expect(res.body).toMatchObject({ id: 'bank-of-c-1', type: 'bank', data: BANK, metadata: { customer: 'c-1' }, containers: ['/bank/customers/'] });
    });

    it.each([
      ['another type', (id: string) => ({ type: 'bank', token_intent_id: id }), ['type']],
      ['a type that is not a token type', (id: string) => ({ type: 'passport', token_intent_id: id }), ['type']],
      ['data as well', (id: string) => ({ type: 'card', data: CARD, token_intent_id: id }), ['data', 'token_intent_id']],
      ['a mask that does not parse', (id: string) => ({ token_intent_id: id, mask: '{{ data.number | nope }}' }), ['mask']],
      ['search indexes, which cards do not take', (id: string) => ({ token_intent_id: id, search_indexes: ['{{ data.number }}'] }), ['search_indexes']],
      ['an expiry in the past', (id: string) => ({ token_intent_id: id, expires_at: '2025-01-01T00:00:00Z' }), ['expires_at']],
    ])('refuses %s with a 400, and keeps the intent', async (_case, body, fields) => {
      const intent = await createIntent();
      const res = await backend.post('/tokens').send(body(intent.id)).expect(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(fields);
      expect(res.text).not.toContain(NUMBER);
      expect((await backend.get(`/token-intents/${intent.id}`).expect(200)).body).toEqual(intent);
    });

    it('puts the intent back when the token cannot be stored, so the request can be sent again', async () => {
      await backend.post('/tokens').send({ id: 'taken-id', type: 'token', data: 'x' }).expect(201);
      const intent = await createIntent();
      await backend.post('/tokens').send({ id: 'taken-id', token_intent_id: intent.id }).expect(409);
      await backend.get(`/token-intents/${intent.id}`).expect(200);
      await backend.post('/tokens').send({ id: 'free-id', token_intent_id: intent.id }).expect(201);
      await backend.get(`/token-intents/${intent.id}`).expect(404);
    });

    it('records convert only with a token made of the intent: not for a create or tokenize that stored nothing', async () => {
      const converts = async (id: string): Promise<number> => {
        await h.settleAudit();
        const events = (await as(h.app, h.key).get(`/logs?entity_id=${id}&size=100`).expect(200)).body.data as Array<{ operation: string; outcome: string }>;
        return events.filter((e) => e.operation === 'convert').length;
      };
      await backend.post('/tokens').send({ id: 'taken-id-2', type: 'token', data: 'x' }).expect(201);
      const intent = await createIntent();
      await backend.post('/tokens').send({ id: 'taken-id-2', token_intent_id: intent.id }).expect(409);
      await backend.post('/tokenize').send([{ token_intent_id: intent.id }, { type: 'nope', data: 1 }]).expect(400);
      await backend.post('/tokenize').send([{ token_intent_id: intent.id, id: 'taken-id-2' }]).expect(409);
      expect(await converts(intent.id)).toBe(0);
      const made = (await backend.post('/tokenize').send([{ token_intent_id: intent.id }]).expect(201)).body as Array<{ id: string }>;
      expect(await converts(intent.id)).toBe(1);
      // Deduplicated into an existing token: the intent is used up, and its convert recorded.
      const again = await createIntent();
      const dedup = await backend.post('/tokens').send({ token_intent_id: again.id, deduplicate_token: true }).expect(201);
      expect(dedup.body.id).toBe(made[0]!.id);
      expect(await converts(again.id)).toBe(1);
    });

    it('puts the intent back when no rule lets the caller create the token there', async () => {
      const intent = await createIntent();
      const elsewhere = await applicationKey(h, {
        name: 'general only',
        type: 'private',
        rules: [{ description: 'general', priority: 1, container: '/general/', transform: 'mask', permissions: ['token:create'] }],
      });
      await as(h.app, elsewhere).post('/tokens').send({ token_intent_id: intent.id }).expect(403);
      await backend.get(`/token-intents/${intent.id}`).expect(200);
    });

    it('answers 400 on token_intent_id for an unknown, deleted or empty id', async () => {
      const intent = await createIntent();
      await backend.delete(`/token-intents/${intent.id}`).expect(204);
      for (const id of [intent.id, 'no-such-intent', '']) {
        const res = await backend.post('/tokens').send({ token_intent_id: id }).expect(400);
        expect(Object.keys(res.body.errors)).toEqual(['token_intent_id']);
      }
      const missing = await backend.post('/tokens').send({}).expect(400);
      expect(Object.keys(missing.body.errors)).toEqual(['type']);
    });

    it('needs token:create, and no intent permission, to convert', async () => {
      const intent = await createIntent();
      await as(h.app, await privateKey(h, ...INTENT_PERMISSIONS)).post('/tokens').send({ token_intent_id: intent.id }).expect(403);
      const pub = as(h.app, await applicationKey(h, { name: 'web', type: 'public', permissions: ['token:create'] }));
      const token = (await pub.post('/tokens').send({ token_intent_id: intent.id }).expect(201)).body;
      // Created through a mask-only key: the answer shows the masked card, and the token holds the whole one.
      expect(token.data.number).toMatch(/^X+4242$/);
      expect((await backend.get(`/tokens/${token.id}`).expect(200)).body.data).toEqual({ number: NUMBER, expiration_month: 12, expiration_year: 2030 });
    });

    it('makes exactly one token of one intent under concurrent conversions', async () => {
      const intent = await createIntent();
      const answers = await Promise.all(Array.from({ length: 12 }, () => backend.post('/tokens').send({ token_intent_id: intent.id })));
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([201, ...Array.from({ length: 11 }, () => 400)]);
      for (const res of answers.filter((r) => r.status === 400)) expect(Object.keys(res.body.errors)).toEqual(['token_intent_id']);
      const search = await backend.post('/tokens/search').send({ query: `fingerprint:${intent.fingerprint}` }).expect(200);
      expect(search.body.pagination.total_items).toBe(1);
    });

    it('makes one token when concurrent conversions race a delete', async () => {
      const intent = await createIntent();
      const answers = await Promise.all([
        backend.post('/tokens').send({ token_intent_id: intent.id }),
        backend.delete(`/token-intents/${intent.id}`),
        backend.post('/tokens').send({ token_intent_id: intent.id }),
      ]);
      const won = answers.filter((res) => res.status === 201 || res.status === 204);
      expect(won).toHaveLength(1);
      const search = await backend.post('/tokens/search').send({ query: `fingerprint:${intent.fingerprint}` }).expect(200);
      expect(search.body.pagination.total_items).toBe(won[0]!.status === 201 ? 1 : 0);
    });
  });

  describe('expiry', () => {
    it('keeps an intent 24 hours: then it reads, deletes and converts as unknown, and the sweeper erases it', async () => {
      const intent = await createIntent();
      const used = await createIntent();
      h.clock.advanceMinutes(24 * 60 - 1);
      await backend.get(`/token-intents/${intent.id}`).expect(200);
      await backend.post('/tokens').send({ token_intent_id: used.id }).expect(201);
      h.clock.advanceMinutes(1);
      await backend.get(`/token-intents/${intent.id}`).expect(404);
      await backend.delete(`/token-intents/${intent.id}`).expect(404);
      const conversion = await backend.post('/tokens').send({ token_intent_id: intent.id }).expect(400);
      expect(Object.keys(conversion.body.errors)).toEqual(['token_intent_id']);
      expect((await h.sweep()).tokenIntents).toBe(1);
      expect(await intentsHeld(h)).toBe(0);
    });

    it('keeps intents for SVC_TOKEN_INTENT_TTL', async () => {
      const short = await harness({ SVC_TOKEN_INTENT_TTL: '30m' });
      const key = await privateKey(short, 'token:intent:create', 'token:intent:read');
      const intent = (await as(short.app, key).post('/token-intents').send({ type: 'card', data: CARD }).expect(201)).body;
      expect(intent.expires_at).toBe('2026-01-01T00:30:00.000Z');
      short.clock.advanceMinutes(30);
      await as(short.app, key).get(`/token-intents/${intent.id}`).expect(404);
    });

    it.each([['0'], ['an hour'], ['-5m']])('refuses SVC_TOKEN_INTENT_TTL=%s, naming it', (value) => {
      expect(() => loadConfig({ SVC_STORE: 'memory', SVC_TOKEN_INTENT_TTL: value })).toThrow(/SVC_TOKEN_INTENT_TTL/);
    });

    it('reads durations as SVC_CVC_RETENTION does', () => {
      expect(loadConfig({ SVC_STORE: 'memory' }).tokenIntentTtlMs).toBe(86_400_000);
      expect(loadConfig({ SVC_STORE: 'memory', SVC_TOKEN_INTENT_TTL: '3600' }).tokenIntentTtlMs).toBe(3_600_000);
      expect(loadConfig({ SVC_STORE: 'memory', SVC_TOKEN_INTENT_TTL: '90s' }).tokenIntentTtlMs).toBe(90_000);
      expect(loadConfig({ SVC_STORE: 'memory', SVC_TOKEN_INTENT_TTL: '1h' }).tokenIntentTtlMs).toBe(3_600_000);
    });
  });

  it("works through the Basis Theory SDK's tokenIntents and tokens clients", async () => {
    const server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const key = await privateKey(h, ...INTENT_PERMISSIONS, 'token:create', 'token:use', 'token:read');
      const client = new BasisTheoryClient({ apiKey: key, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const intent = await client.tokenIntents.create({ type: 'card', data: CARD });
      expect(intent.card).toEqual({ bin: '424242', last4: '4242', expirationMonth: 12, expirationYear: 2030, brand: 'visa', funding: 'unknown' });
      expect(intent.expiresAt).toEqual(new Date('2026-01-02T00:00:00.000Z'));
      expect((await client.tokenIntents.get(intent.id!)).fingerprint).toBe(intent.fingerprint);
      const token = await client.tokens.create({ tokenIntentId: intent.id! });
      expect(token.data).toEqual({ number: NUMBER, expiration_month: 12, expiration_year: 2030 });
      const other = await client.tokenIntents.create({ type: 'bank', data: BANK });
      expect(other.bank).toEqual({ routingNumber: '021000021', accountNumberLast4: '0123' });
      await client.tokenIntents.delete(other.id!);
      await expect(client.tokenIntents.get(other.id!)).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('token intents at rest in the SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-intents-at-rest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds neither the card number nor the cvc of an intent in plaintext', async () => {
    const file = join(dir, 'svc.db');
    const store = openSqliteStore({ file, writerThread: false });
    try {
      const config = loadConfig({ SVC_STORE: 'sqlite', SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent', SVC_MASTER_KEY: Buffer.alloc(32, 5).toString('base64') });
      const container = buildContainer(config, { store, clock: new FixedClock('2026-01-01T00:00:00.000Z'), logger: new Logger('silent') });
      const tenant = await container.resolve<CreateTenant>(TOKENS.CreateTenant).execute({ name: 'Acme', ownerEmail: 'owner@acme.test' });
      const app = createApp(container);
      const key = (await as(app, tenant.management.key).post('/applications').send({ name: 'p', type: 'private', permissions: INTENT_PERMISSIONS }).expect(201)).body.key as string;
      const card = { number: '5555555555554444', expiration_month: 7, expiration_year: 2031, cvc: '7319' };
      await as(app, key).post('/token-intents').send({ type: 'card', data: card }).expect(201);
      await as(app, key).post('/token-intents').send({ type: 'bank', data: { routing_number: '021000021', account_number: '99887766554433' } }).expect(201);
      expect(await store.tokenIntents.deleteExpired(new Date('2026-01-01T00:00:00.000Z'))).toBe(0);

      const files = [file, `${file}-wal`].filter(existsSync);
      const content = files.map((f) => readFileSync(f).toString('latin1')).join('');
      expect(content.length).toBeGreaterThan(0);
      for (const secret of ['5555555555554444', '"cvc"', 'cvc":"7319', '99887766554433']) expect({ secret, found: content.includes(secret) }).toEqual({ secret, found: false });
    } finally {
      await store.close();
    }
    const closed = readFileSync(file).toString('latin1');
    expect(closed.includes('5555555555554444')).toBe(false);
    expect(closed.includes('99887766554433')).toBe(false);
  });
});
