import { applicationKey, as, harness, type Harness, privateKey } from './harness';

describe('tokens over HTTP', () => {
  let h: Harness;
  let reveal: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    reveal = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:delete', 'token:use'));
  });

  describe('create and read', () => {
    it('creates a token with defaults and reads it back revealed', async () => {
      const created = await reveal.post('/tokens').send({ type: 'token', data: { name: 'Ada', n: [1, 2] }, metadata: { customer: 'c1' } }).expect(201);
      expect(created.body).toMatchObject({
        type: 'token',
        tenant_id: h.tenant.tenant.id,
        data: { name: 'Ada', n: [1, 2] },
        containers: ['/general/high/'],
        metadata: { customer: 'c1' },
        fingerprint_expression: '{{ data | stringify }}',
        created_at: '2026-01-01T00:00:00.000Z',
      });
      expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.body.fingerprint).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
      const got = await reveal.get(`/tokens/${created.body.id}`).expect(200);
      expect(got.body).toEqual(created.body);
    });

    it.each([
      ['token', 'any text', '/general/high/'],
      ['card', { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' }, '/pci/high/'],
      ['bank', { routing_number: '021000021', account_number: '1234567890' }, '/bank/high/'],
      ['card_number', '4242424242424242', '/pci/high/'],
      ['us_bank_account_number', '000123456789', '/bank/high/'],
      ['us_bank_routing_number', '021000021', '/bank/low/'],
      ['social_security_number', '123-45-6789', '/pii/high/'],
      ['employer_id_number', '12-3456789', '/pii/high/'],
    ])('accepts a valid %s in its default container', async (type, data, container) => {
      const res = await reveal.post('/tokens').send({ type, data }).expect(201);
      expect(res.body.containers).toEqual([container]);
      expect(res.body.data).toEqual(data);
    });

    it.each([
      ['card', { number: '4242424242424241' }, 'data.number'],
      ['card', { number: '4242424242424242', expiration_month: 13 }, 'data.expiration_month'],
      ['card', { number: '4242424242424242', expiration_year: 30 }, 'data.expiration_year'],
      ['card', { number: '4242424242424242', cvc: '12' }, 'data.cvc'],
      ['card', { number: '4242424242424242', pin: '1234' }, 'data.pin'],
      ['card', '4242424242424242', 'data'],
      ['bank', { routing_number: '021000022', account_number: '123456' }, 'data.routing_number'],
      ['bank', { routing_number: '021000021', account_number: '123456789012345678' }, 'data.account_number'],
      ['card_number', '4242424242424241', 'data'],
      ['card_number', 4242424242424242, 'data'],
      ['card_number', '424242424242', 'data'],
      ['us_bank_account_number', '12', 'data'],
      ['us_bank_routing_number', '123456789', 'data'],
      ['social_security_number', '12-345-6789', 'data'],
      ['social_security_number', '1234567890', 'data'],
      ['employer_id_number', '123-456789', 'data'],
      ['token', null, 'data'],
    ])('rejects an invalid %s with a 400 on %s', async (type, data, field) => {
      const res = await reveal.post('/tokens').send({ type, data }).expect(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
      expect(JSON.stringify(res.body)).not.toContain(typeof data === 'string' ? data : '4242424242424241');
    });

    it.each([
      ['an unknown type', { type: 'passport', data: 'x' }, 'type'],
      ['a missing type', { data: 'x' }, 'type'],
      ['an unknown field', { type: 'token', data: 'x', colour: 1 }, 'colour'],
      ['two containers', { type: 'token', data: 'x', containers: ['/a/', '/b/'] }, 'containers'],
      ['a bad container', { type: 'token', data: 'x', containers: ['/a b/'] }, 'containers[0]'],
      ['a container with a character lower-casing would fold into ASCII (the Kelvin sign)', { type: 'token', data: 'x', containers: ['/\u212a/'] }, 'containers[0]'],
      ['a non-string metadata value', { type: 'token', data: 'x', metadata: { a: 1 } }, 'metadata.a'],
      ['a mask with an unknown filter', { type: 'token', data: 'x', mask: '{{ data | reveal_lats: 4 }}' }, 'mask'],
      ['a mask object with a broken template', { type: 'token', data: { a: 'x' }, mask: { a: '{{ data.a | }}' } }, 'mask.a'],
      ['a fingerprint expression that does not parse', { type: 'token', data: 'x', fingerprint_expression: '{{ data ' }, 'fingerprint_expression'],
      ['search indexes on a card number', { type: 'card_number', data: '4242424242424242', search_indexes: ['{{ data }}'] }, 'search_indexes'],
      ['an empty search index value', { type: 'token', data: { a: 'x' }, search_indexes: ['{{ data.b }}'] }, 'search_indexes[0]'],
      // "A single value that is not null and not empty" (interface.md §4.6): not an object, a list or a range.
      ['a search index that is an object', { type: 'token', data: { card: '4242424242424242' }, search_indexes: ['{{ data }}'] }, 'search_indexes[0]'],
      ['a search index that is a list', { type: 'token', data: 'aa-bb', search_indexes: ['{{ data | split: "-" }}'] }, 'search_indexes[0]'],
      ['a search index that is a range', { type: 'token', data: 'x', search_indexes: ['{{ data }}', '{{ (1..3) }}'] }, 'search_indexes[1]'],
      // hmac gives bytes, to be piped into an encoder (expressions.md): bytes are no mask, fingerprint or index.
      ['a mask of bytes', { type: 'token', data: 'x', mask: "{{ data | hmac: 'sha-256', 'k' }}" }, 'mask'],
      ['a fingerprint of bytes', { type: 'token', data: 'x', fingerprint_expression: "{{ data | hmac: 'sha-256', 'k' }}" }, 'fingerprint_expression'],
      ['a search index of bytes', { type: 'token', data: 'x', search_indexes: ["{{ data | hmac: 'sha-256', 'k' }}"] }, 'search_indexes[0]'],
      ['a mask of bytes made text by append', { type: 'token', data: 'x', mask: "{{ data | hmac: 'sha-256', 'k' | append: '' }}" }, 'mask'],
      ['a fingerprint of bytes made text by join', { type: 'token', data: 'x', fingerprint_expression: "{{ data | hmac: 'sha-256', 'k' | join: '' }}" }, 'fingerprint_expression'],
      ['an id with a slash', { id: 'a/b/c', type: 'token', data: 'x' }, 'id'],
      ['an id too short', { id: 'ab', type: 'token', data: 'x' }, 'id'],
      ['an id of two characters in four UTF-16 units', { id: '😀😀', type: 'token', data: 'x' }, 'id'],
      ['an expiry in the past', { type: 'token', data: 'x', expires_at: '2025-12-31T23:59:59Z' }, 'expires_at'],
      ['an expiry in an unknown shape', { type: 'token', data: 'x', expires_at: 'next week' }, 'expires_at'],
      ['a short date in the past', { type: 'token', data: 'x', expires_at: '12/31/2025' }, 'expires_at'],
    ])('rejects %s with a 400 naming the field', async (_case, body, field) => {
      const res = await reveal.post('/tokens').send(body).expect(400);
      expect(Object.keys(res.body.errors)).toContain(field);
    });

    it('takes a search index whose outputs are partly nil (Liquid prints nil as nothing), and keeps patching such a token', async () => {
      const made = await reveal.post('/tokens').send({ type: 'token', data: { a: 'x' }, search_indexes: ['x{{ data.a }}-{{ data.b }}'] }).expect(201);
      const both = await reveal.post('/tokens').send({ type: 'token', data: { a: 'x', b: 'y' }, search_indexes: ['{{ data.a }}{{ data.b }}'] }).expect(201);
      await reveal.patch(`/tokens/${both.body.id}`).set('Content-Type', 'application/merge-patch+json').send({ data: { b: null } }).expect(200);
      expect(made.body.id).toBeDefined();
    });

    it('takes a search index of one text value made of several outputs, and one an encoder made of hmac bytes', async () => {
      const res = await reveal
        .post('/tokens')
        .send({ type: 'token', data: { a: 'x', b: 7 }, search_indexes: ['{{ data.a }}-{{ data.b }}', "{{ data.a | hmac: 'sha-256', 'k' | to_base16 }}"] })
        .expect(201);
      const searcher = as(h.app, await privateKey(h, 'token:search', 'token:use'));
      const found = await searcher.post('/tokens/search').send({ query: 'data:x-7' }).expect(200);
      expect(found.body.data.map((t: { id: string }) => t.id)).toEqual([res.body.id]);
    });

    it.each([
      ['ISO 8601 with offset', '2026-03-01T10:00:00+02:00', '2026-03-01T08:00:00.000Z'],
      ['ISO 8601 without offset (UTC)', '2026-03-01T10:00:00', '2026-03-01T10:00:00.000Z'],
      ['a US date-time with offset', '3/1/2026 10:30:00 PM +01:00', '2026-03-01T21:30:00.000Z'],
      ['a US date-time without offset', '3/1/2026 12:05:00 AM', '2026-03-01T00:05:00.000Z'],
      ['a short date (midnight UTC)', '3/1/2026', '2026-03-01T00:00:00.000Z'],
    ])('accepts an expiry as %s', async (_case, value, expected) => {
      const res = await reveal.post('/tokens').send({ type: 'token', data: 'x', expires_at: value }).expect(201);
      expect(res.body.expires_at).toBe(expected);
    });

    it('takes a literal id and refuses a duplicate with 409', async () => {
      await reveal.post('/tokens').send({ id: 'my-token-1', type: 'token', data: 'x' }).expect(201);
      const dup = await reveal.post('/tokens').send({ id: 'my-token-1', type: 'token', data: 'y' }).expect(409);
      expect(dup.body.type).toBe('https://svc.dev/errors/conflict');
      expect((await reveal.get('/tokens/my-token-1').expect(200)).body.data).toBe('x');
    });

    it('evaluates an id expression into an alias that keeps the format', async () => {
      const res = await reveal
        .post('/tokens')
        .send({ id: '{{ data | alias_preserve_format: 0, 4 }}', type: 'card_number', data: '4111111111111111' })
        .expect(201);
      expect(res.body.id).toMatch(/^\d{12}1111$/);
      expect(res.body.id).not.toBe('4111111111111111');
      await reveal.get(`/tokens/${res.body.id}`).expect(200);
    });

    it('answers an unknown token with 404', async () => {
      await reveal.get('/tokens/no-such-token').expect(404);
    });
  });

  describe('masks', () => {
    const masked = async (body: object): Promise<unknown> => {
      const created = await reveal.post('/tokens').send(body).expect(201);
      const reader = as(h.app, await privateKey(h, 'token:read'));
      return (await reader.get(`/tokens/${created.body.id}`).expect(200)).body.data;
    };

    it.each([
      ['card_number', '4242424242424242', 'XXXXXXXXXXXX4242'],
      ['social_security_number', '123-45-6789', 'XXX-XX-6789'],
      ['social_security_number', '123456789', 'XXXXX6789'],
      ['employer_id_number', '12-3456789', 'XX-XXX6789'],
      ['us_bank_account_number', '000123456789', 'XXXXXXXX6789'],
      ['us_bank_routing_number', '021000021', 'XXXXX0021'],
    ])('masks a %s by default', async (type, data, expected) => {
      expect(await masked({ type, data })).toBe(expected);
    });

    it('masks a card by default, keeping the expiry and never showing the cvc', async () => {
      const data = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };
      expect(await masked({ type: 'card', data })).toEqual({ number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 });
    });

    it("never shows a card's cvc through a mask of its own, whatever the mask reads", async () => {
      const data = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '987' };
      const reader = as(h.app, await privateKey(h, 'token:read'));
      let read = 0;
      for (const mask of [{ number: "{{ data | json: '$.cvc' }}" }, '{{ data.cvc }}', { all: '{{ data | json }}' }, '{{ data | stringify }}']) {
        // Refused at create (the mask checked against the data), or made: then its reads never hold the cvc.
        const created = await reveal.post('/tokens').send({ type: 'card', data, mask });
        expect([201, 400]).toContain(created.status);
        if (created.status !== 201) continue;
        read++;
        // The data and mask only: ids and fingerprints are random and may hold the digits anywhere.
        const { data: shown, mask: kept } = (await reader.get(`/tokens/${created.body.id}`).expect(200)).body;
        expect(JSON.stringify([shown, kept])).not.toContain('987');
      }
      expect(read).toBeGreaterThan(0);
    });

    it('masks a bank account by default', async () => {
      expect(await masked({ type: 'bank', data: { routing_number: '021000021', account_number: '1234567890' } })).toEqual({
        routing_number: '021000021',
        account_number: 'XXXXXX7890',
      });
    });

    it('redacts a generic token that has no mask', async () => {
      const created = await reveal.post('/tokens').send({ type: 'token', data: 'secret' }).expect(201);
      const reader = as(h.app, await privateKey(h, 'token:read'));
      const res = await reader.get(`/tokens/${created.body.id}`).expect(200);
      expect(res.body).not.toHaveProperty('data');
      expect(JSON.stringify(res.body)).not.toContain('secret');
    });

    it.each([
      ['{{ data | last4 }}', '3622720627165567', '5567'],
      ["{{ data | reveal_last: 6 }}", '36227206271667', 'XXXXXXXX271667'],
      ["{{ data | reveal_last: 3, '#' }}", '36227206271667', '###########667'],
      ['{{ data | reveal: 6 }}', '3622-7206-2716-5567', '3622-7XXXXXXXXXXXXX'],
      ['{{ data | reveal: 7, 5 }}', '3622-7206-2716-5567', '3622-72XXXXXXX-5567'],
      ["{{ data | reveal: 7, 4, '#', '-' }}", '3622-7206-2716-5567', '3622-72##-####-5567'],
      ['{{ data | reveal: 10, 9 }}', '3622-7206-2716-5567', 'XXXXXXXXXXXXXXXXXXX'],
      ['{{ data | card_bin }}', '3622720627165567', '36227206'],
      ["{{ data | replace: '-' }}", '123-45-6789', '123456789'],
      ["{{ data | remove: '-' }}", '123-45-6789', '123456789'],
      ['{{ data | slice: 0 }}.', 'Doe', 'D.'],
      ["{{ data | pad_left: 6, '0' }}", '42', '000042'],
      ['{{ data | stringify }}', 'abc', '"abc"'],
      ["{{ data | json: '$.number' }}", { number: '4242' }, '4242'],
      ["{{ data | card_exp: 'MM/YY' }}", { expiration_month: 12, expiration_year: 2030 }, '12/30'],
      ["{{ data | hmac: 'sha-256', 'k' | to_base16 | size }}", 'x', 64],
      ['{{ data | to_base64 }}', 'hi', 'aGk='],
    ])('evaluates the mask %s', async (mask, data, expected) => {
      expect(await masked({ type: 'token', data, mask })).toEqual(expected);
    });
  });

  describe('access', () => {
    const create = async (type: string, data: unknown, containers?: string[]): Promise<string> =>
      (await reveal.post('/tokens').send({ type, data, ...(containers ? { containers } : {}) }).expect(201)).body.id;

    it('masks with a plain token:read and reveals with token:use', async () => {
      const id = await create('card_number', '4242424242424242');
      const masker = as(h.app, await privateKey(h, 'token:read'));
      expect((await masker.get(`/tokens/${id}`).expect(200)).body.data).toBe('XXXXXXXXXXXX4242');
      const user = as(h.app, await privateKey(h, 'token:read', 'token:use'));
      expect((await user.get(`/tokens/${id}`).expect(200)).body.data).toBe('4242424242424242');
    });

    it('applies the first matching rule by priority, covering sub-containers', async () => {
      const pci = await create('card_number', '4242424242424242');
      const pii = await create('social_security_number', '123-45-6789');
      const general = await create('token', 'plain', ['/general/low/']);
      const key = await applicationKey(h, {
        name: 'rules',
        type: 'private',
        rules: [
          { priority: 3, container: '/', transform: 'redact', permissions: ['token:read'] },
          { priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] },
          { priority: 2, container: '/pii/high/', transform: 'mask', permissions: ['token:read'] },
        ],
      });
      const api = as(h.app, key);
      expect((await api.get(`/tokens/${pci}`).expect(200)).body.data).toBe('4242424242424242');
      expect((await api.get(`/tokens/${pii}`).expect(200)).body.data).toBe('XXX-XX-6789');
      expect((await api.get(`/tokens/${general}`).expect(200)).body).not.toHaveProperty('data');
    });

    it('skips rules that do not grant the operation and answers 403 when none does', async () => {
      const pci = await create('card_number', '4242424242424242');
      const pii = await create('social_security_number', '123-45-6789');
      const key = await applicationKey(h, {
        name: 'pii only',
        type: 'private',
        rules: [
          { priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:create'] },
          { priority: 2, container: '/pii/', transform: 'reveal', permissions: ['token:read'] },
        ],
      });
      const api = as(h.app, key);
      await api.get(`/tokens/${pci}`).expect(403);
      expect((await api.get(`/tokens/${pii}`).expect(200)).body.data).toBe('123-45-6789');
      await api.delete(`/tokens/${pii}`).expect(403);
      await api.post('/tokens').send({ type: 'social_security_number', data: '123-45-6789' }).expect(403);
      const made = await api.post('/tokens').send({ type: 'card_number', data: '4242424242424242' }).expect(201);
      expect(made.body.data).toBe('4242424242424242');
    });

    it('answers 403 to a key without the permission before validating the body', async () => {
      const reader = as(h.app, await privateKey(h, 'token:read'));
      await reader.post('/tokens').send({ nonsense: true }).expect(403);
      const mgmt = as(h.app, h.key);
      await mgmt.post('/tokens').send({ type: 'token', data: 'x' }).expect(403);
    });

    it('answers a token of another tenant as absent for get, update and delete', async () => {
      const other = await h.createTenant('Other');
      const theirKey = await applicationKey(
        { ...h, key: other.management.key },
        { name: 'theirs', type: 'private', permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:use'] },
      );
      const theirs = as(h.app, theirKey);
      const id = (await theirs.post('/tokens').send({ id: 'shared-id-1', type: 'token', data: 'theirs' }).expect(201)).body.id;
      await reveal.get(`/tokens/${id}`).expect(404);
      await reveal.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').send({ data: 'mine' }).expect(404);
      await reveal.delete(`/tokens/${id}`).expect(404);
      expect((await theirs.get(`/tokens/${id}`).expect(200)).body.data).toBe('theirs');
      await reveal.post('/tokens').send({ id: 'shared-id-1', type: 'token', data: 'mine' }).expect(201);
    });
  });

  describe('deduplication', () => {
    it('returns the existing token for the same fingerprint', async () => {
      const first = await reveal.post('/tokens').send({ type: 'card_number', data: '4242424242424242', deduplicate_token: true }).expect(201);
      const second = await reveal.post('/tokens').send({ type: 'card_number', data: '4242424242424242', deduplicate_token: true }).expect(201);
      expect(second.body.id).toBe(first.body.id);
      const other = await reveal.post('/tokens').send({ type: 'card_number', data: '4111111111111111', deduplicate_token: true }).expect(201);
      expect(other.body.id).not.toBe(first.body.id);
      const nodedup = await reveal.post('/tokens').send({ type: 'card_number', data: '4242424242424242' }).expect(201);
      expect(nodedup.body.id).not.toBe(first.body.id);
      expect(nodedup.body.fingerprint).toBe(first.body.fingerprint);
    });

    /**
     * Each fingerprint expression is a 400 naming it, at a create and in a tokenize (with its data), and a PATCH of the
     * token `first` to `patched` is too, leaving its fingerprint as it was.
     */
    async function refusesFingerprints(first: { id: string; fingerprint: string }, cases: ReadonlyArray<readonly [unknown, string]>, patched: string): Promise<void> {
      for (const [data, fingerprint_expression] of cases) {
        const res = await reveal.post('/tokens').send({ type: 'token', data, fingerprint_expression, deduplicate_token: true }).expect(400);
        expect(Object.keys(res.body.errors)).toEqual(['fingerprint_expression']);
        const bulk = await reveal.post('/tokenize').send([{ type: 'token', data, fingerprint_expression, deduplicate_token: true }]).expect(400);
        expect(Object.keys(bulk.body.errors)).toEqual(['[0].fingerprint_expression']);
      }
      const patch = await reveal.patch(`/tokens/${first.id}`).set('Content-Type', 'application/merge-patch+json').send({ fingerprint_expression: patched }).expect(400);
      expect(Object.keys(patch.body.errors)).toEqual(['fingerprint_expression']);
      expect((await reveal.get(`/tokens/${first.id}`).expect(200)).body.fingerprint).toBe(first.fingerprint);
    }

    it('refuses a fingerprint expression that renders nothing, at create and update: it would match unrelated tokens', async () => {
      const first = await reveal
        .post('/tokens')
        .send({ type: 'token', data: { iban: 'DE89370400440532013000' }, fingerprint_expression: '{{ data.iban }}', deduplicate_token: true })
        .expect(201);
      const iban = { iban: 'GB29NWBK60161331926819' };
      await refusesFingerprints(first.body, ['{{ data.account_number }}', '', '  {{ data.missing }} ', '{{ process }}'].map((e) => [iban, e] as const), '');
    });

    it('refuses a fingerprint expression that renders an object or a list: every one would print alike and match', async () => {
      // `{{ data.card }}` of any object printed `[object Object]`, and a list's items ran together (`ab`+`c` = `a`+`bc`):
      // a deduplicating create handed back an unrelated token and stored nothing.
      const first = await reveal.post('/tokens').send({ type: 'token', data: { card: { pan: '1111' } }, fingerprint_expression: '{{ data.card | stringify }}' }).expect(201);
      const cases = [
        [{ card: { pan: '2222' } }, '{{ data.card }}'],
        [{ parts: ['ab', 'c'] }, '{{ data.parts }}'],
        [{ a: 'x' }, '{{ data }}'],
        ['a,b', "{{ data | split: ',' }}"],
      ] as const;
      await refusesFingerprints(first.body, cases, '{{ data.card }}');
      // The default of an object's type stays what it was: its JSON text.
      const plain = await reveal.post('/tokens').send({ type: 'token', data: { card: { pan: '3333' } } }).expect(201);
      expect(plain.body.fingerprint_expression).toBe('{{ data | stringify }}');
    });

    it('yields one token under concurrent creates', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, () => reveal.post('/tokens').send({ type: 'social_security_number', data: '111-22-3333', deduplicate_token: true })),
      );
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    });

    it('shows only identity fields to a caller that may create but not read', async () => {
      const first = await reveal.post('/tokens').send({ type: 'card_number', data: '4242424242424242', deduplicate_token: true }).expect(201);
      const creator = as(h.app, await privateKey(h, 'token:create'));
      const res = await creator.post('/tokens').send({ type: 'card_number', data: '4242424242424242', deduplicate_token: true }).expect(201);
      expect(res.body).toEqual({
        id: first.body.id,
        type: 'card_number',
        tenant_id: h.tenant.tenant.id,
        fingerprint: first.body.fingerprint,
        containers: ['/pci/high/'],
      });
    });
  });

  describe('update', () => {
    it('refuses a move to containers where the caller would read more of the token than where it is (mask to reveal)', async () => {
      /** A key that masks /pci/ and reveals /general/ for `shows` (a read or a search), and may update both. */
      const moverShowing = async (shows: string) =>
        as(h.app, await applicationKey(h, {
          name: `mover by ${shows}`,
          type: 'private',
          permissions: [],
          rules: [
            { priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:update'] },
            { priority: 2, container: '/general/', transform: 'reveal', permissions: [shows, 'token:update'] },
          ],
        }));
      const mover = await moverShowing('token:read');
      const card = (await reveal.post('/tokens').send({ type: 'card_number', data: '5105105105105100' }).expect(201)).body.id as string;
      expect((await mover.get(`/tokens/${card}`).expect(200)).body.data).toBe('XXXXXXXXXXXX5100');
      const moved = await mover.patch(`/tokens/${card}`).set('Content-Type', 'application/merge-patch+json').send({ containers: ['/general/high/'] }).expect(403);
      expect(moved.text).not.toContain('5105105105105100');
      expect((await reveal.get(`/tokens/${card}`).expect(200)).body.containers).toEqual(['/pci/high/']);
      // Nor through a search: a key that may only search (revealing) where the card would go, and reads nothing there.
      const searcher = await moverShowing('token:search');
      await searcher.patch(`/tokens/${card}`).set('Content-Type', 'application/merge-patch+json').send({ containers: ['/general/'] }).expect(403);
      for (const path of ['/tokens/search', '/v2/tokens/search']) {
        expect((await searcher.post(path).send({ query: `id:${card}` }).expect(200)).text).not.toContain('5105105105105100');
      }
      // A move that reads no more is fine: a token it reveals, moved to where it masks.
      const note = (await reveal.post('/tokens').send({ type: 'token', data: 'note', containers: ['/general/'] }).expect(201)).body.id as string;
      const down = await mover.patch(`/tokens/${note}`).set('Content-Type', 'application/merge-patch+json').send({ containers: ['/pci/'] }).expect(200);
      expect(down.body.containers).toEqual(['/pci/']);
    });

    const patch = (id: string) => reveal.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json');

    it('merges data, mask and metadata, replaces the rest, and records the modifier', async () => {
      const created = (
        await reveal
          .post('/tokens')
          .send({ type: 'token', data: { a: 1, b: { c: 2, d: 3 } }, metadata: { keep: 'k', drop: 'd' }, mask: { a: '{{ data.a }}' } })
          .expect(201)
      ).body;
      h.clock.advanceMinutes(10);
      const res = await patch(created.id)
        .send({ data: { b: { c: null, e: 5 }, f: 'new' }, metadata: { drop: null, add: 'x' }, mask: { f: '{{ data.f }}' }, containers: ['/general/low/'] })
        .expect(200);
      expect(res.body).toMatchObject({
        data: { a: 1, b: { d: 3, e: 5 }, f: 'new' },
        metadata: { keep: 'k', add: 'x' },
        mask: { a: '{{ data.a }}', f: '{{ data.f }}' },
        containers: ['/general/low/'],
        modified_at: '2026-01-01T00:10:00.000Z',
      });
      expect(res.body.modified_by).toBeDefined();
      expect(res.body.fingerprint).not.toBe(created.fingerprint);
      expect((await reveal.get(`/tokens/${created.id}`).expect(200)).body).toEqual(res.body);
    });

    it('re-validates patched data against its type and changes nothing on failure', async () => {
      const created = (await reveal.post('/tokens').send({ type: 'card', data: { number: '4242424242424242', expiration_month: 1, expiration_year: 2030 } }).expect(201)).body;
      const res = await patch(created.id).send({ data: { expiration_month: 13 } }).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['data.expiration_month']);
      expect((await reveal.get(`/tokens/${created.id}`).expect(200)).body.data.expiration_month).toBe(1);
      const ok = await patch(created.id).send({ data: { expiration_month: 2 } }).expect(200);
      expect(ok.body.data).toEqual({ number: '4242424242424242', expiration_month: 2, expiration_year: 2030 });
    });

    it('clears the expiry with null', async () => {
      const created = (await reveal.post('/tokens').send({ type: 'token', data: 'x', expires_at: '2026-02-01T00:00:00Z' }).expect(201)).body;
      const res = await patch(created.id).send({ expires_at: null }).expect(200);
      expect(res.body.expires_at).toBeUndefined();
    });

    it('needs application/merge-patch+json (415 otherwise)', async () => {
      const created = (await reveal.post('/tokens').send({ type: 'token', data: 'x' }).expect(201)).body;
      await reveal.patch(`/tokens/${created.id}`).send({ data: 'y' }).expect(415);
      await reveal.patch(`/tokens/${created.id}`).set('Content-Type', 'text/plain').send('y').expect(415);
      await reveal.patch(`/tokens/${created.id}`).expect(415);
      expect((await reveal.get(`/tokens/${created.id}`).expect(200)).body.data).toBe('x');
    });

    it('rejects unknown fields and types that are wrong', async () => {
      const created = (await reveal.post('/tokens').send({ type: 'token', data: 'x' }).expect(201)).body;
      const res = await patch(created.id).send({ type: 'card', containers: 'x' }).expect(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['containers', 'type']);
    });
  });

  describe('delete', () => {
    it('deletes a token', async () => {
      const created = (await reveal.post('/tokens').send({ type: 'token', data: 'x' }).expect(201)).body;
      await reveal.delete(`/tokens/${created.id}`).expect(204);
      await reveal.get(`/tokens/${created.id}`).expect(404);
      await reveal.delete(`/tokens/${created.id}`).expect(404);
    });
  });

  describe('time', () => {
    it('makes an expired token absent at once', async () => {
      const created = (await reveal.post('/tokens').send({ type: 'token', data: 'x', expires_at: '2026-01-01T00:30:00Z' }).expect(201)).body;
      h.clock.set('2026-01-01T00:29:59.999Z');
      await reveal.get(`/tokens/${created.id}`).expect(200);
      h.clock.set('2026-01-01T00:30:00.000Z');
      await reveal.get(`/tokens/${created.id}`).expect(404);
      await reveal.patch(`/tokens/${created.id}`).set('Content-Type', 'application/merge-patch+json').send({ data: 'y' }).expect(404);
      await reveal.delete(`/tokens/${created.id}`).expect(404);
    });

    it('drops the cvc from responses one hour after creation', async () => {
      const data = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };
      const created = (await reveal.post('/tokens').send({ type: 'card', data }).expect(201)).body;
      h.clock.advanceMinutes(59);
      expect((await reveal.get(`/tokens/${created.id}`).expect(200)).body.data.cvc).toBe('123');
      h.clock.advanceMinutes(1);
      const res = await reveal.get(`/tokens/${created.id}`).expect(200);
      expect(res.body.data).toEqual({ number: '4242424242424242', expiration_month: 12, expiration_year: 2030 });
    });
  });
});
