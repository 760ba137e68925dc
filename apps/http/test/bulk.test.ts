import request from 'supertest';
import { applicationKey, as, harness, type Harness, privateKey } from './harness';

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const card = (number: string, extra: object = {}) => ({ type: 'card', data: { number, expiration_month: 12, expiration_year: 2030, cvc: '123' }, ...extra });

/** How many tokens the tenant of `key` holds. */
async function tokenCount(h: Harness, key: string): Promise<number> {
  const res = await as(h.app, key).post('/tokens/search').send({ query: '', size: 1 }).expect(200);
  return res.body.pagination.total_items as number;
}

describe('POST /tokenize', () => {
  let h: Harness;
  let key: string;

  beforeEach(async () => {
    h = await harness();
    key = await privateKey(h, 'token:create', 'token:read', 'token:use', 'token:search');
  });

  it("bounds the work of a call's expressions together, not only each one's: each token's alone is fine", async () => {
    // A fingerprint doing about 40% of one expression's work: accepted on its own, as is a token doing it three times
    // (its expressions share one bound); a hundred of them in one call (each alone within bounds) held the event loop
    // for seconds, and are now a 400 naming the item past the call's bound, with nothing stored.
    const data = 'abcdef'.repeat(1_000);
    const heavy = "{% for i in (1..180) %}{% assign y = data | reveal_last: 2 %}{% endfor %}{{ data | slice: 0, 12 }}";
    await as(h.app, key).post('/tokens').send({ type: 'token', data, fingerprint_expression: heavy }).expect(201);
    const tripled = await as(h.app, key).post('/tokens').send({ type: 'token', data, fingerprint_expression: heavy, search_indexes: [heavy, `${heavy}-2`] }).expect(400);
    expect(Object.keys(tripled.body.errors)).toEqual(['search_indexes[1]']);
    const before = await tokenCount(h, key);
    const res = await as(h.app, key)
      .post('/tokenize')
      .send(Array.from({ length: 100 }, () => ({ type: 'token', data, fingerprint_expression: heavy })))
      .expect(400);
    const [field, ...others] = Object.keys(res.body.errors);
    expect(others).toEqual([]);
    expect(field).toMatch(/^\[[3-6]\]\.fingerprint_expression$/);
    expect(res.body.errors[field!][0]).toMatch(/exceeds the allowed size, time or memory/);
    expect(await tokenCount(h, key)).toBe(before);
  });

  it('answers the body in the same shape: requests become tokens, values become ids, null and keys stay', async () => {
    const body = {
      card: card(VISA),
      ssn: { type: 'social_security_number', data: '123-45-6789', metadata: { source: 'bulk' } },
      nested: { list: ['plain text', 42, true, null, { deep: 'value' }] },
      nothing: null,
    };
    const res = await as(h.app, key).post('/tokenize').send(body).expect(201);
    expect(res.body.card).toMatchObject({ type: 'card', data: { number: VISA }, containers: ['/pci/high/'], _extras: { deduplicated: false } });
    expect(res.body.ssn).toMatchObject({ type: 'social_security_number', metadata: { source: 'bulk' }, _extras: { deduplicated: false } });
    expect(res.body.nothing).toBeNull();
    const [text, number, flag, empty, object] = res.body.nested.list;
    expect(empty).toBeNull();
    for (const id of [text, number, flag, object.deep]) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const read = async (id: string) => (await as(h.app, key).get(`/tokens/${id}`).expect(200)).body;
    expect(await read(text)).toMatchObject({ type: 'token', data: 'plain text', containers: ['/general/high/'] });
    expect((await read(number)).data).toBe(42);
    expect((await read(flag)).data).toBe(true);
    expect((await read(object.deep)).data).toBe('value');
    expect((await read(res.body.card.id)).data.number).toBe(VISA);
    expect(await tokenCount(h, key)).toBe(6);
  });

  it('takes an array at the root and a single request or value as the whole body', async () => {
    const array = await as(h.app, key).post('/tokenize').send([card(VISA), 'x-value']).expect(201);
    expect(array.body[0]).toMatchObject({ type: 'card' });
    expect(typeof array.body[1]).toBe('string');
    const single = await as(h.app, key).post('/tokenize').send(card(MASTERCARD)).expect(201);
    expect(single.body).toMatchObject({ type: 'card', data: { number: MASTERCARD } });
    const value = await as(h.app, key).post('/tokenize').set('Content-Type', 'application/json').send('"just a string"').expect(201);
    expect((await as(h.app, key).get(`/tokens/${value.body}`).expect(200)).body.data).toBe('just a string');
  });

  it('is all or nothing: one invalid request fails the call with every error keyed by its path, and creates nothing', async () => {
    const res = await as(h.app, key)
      .post('/tokenize')
      .send({ good: card(VISA), bad: card('4242424242424241'), list: [{ type: 'card_number', data: '1' }, { type: 'nope', data: 'x' }] })
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(Object.keys(res.body.errors).sort()).toEqual(['bad.data.number', 'list[0].data', 'list[1].type']);
    expect(await tokenCount(h, key)).toBe(0);
  });

  it('names unknown fields of a request by path, and checks each request as POST /tokens does', async () => {
    const res = await as(h.app, key).post('/tokenize').send([{ type: 'token', data: 'a' }, { type: 'token', data: 'b', colour: 'red' }]).expect(400);
    expect(res.body.errors).toEqual({ '[1].colour': ['Unknown field.'] });
    const mask = await as(h.app, key).post('/tokenize').send({ t: { type: 'token', data: 'a', mask: '{{ data | nope }}' } }).expect(400);
    expect(Object.keys(mask.body.errors)).toEqual(['t.mask']);
    expect(await tokenCount(h, key)).toBe(0);
  });

  it('creates nothing when one id is taken, in the store or earlier in the same call (409 naming the path)', async () => {
    await as(h.app, key).post('/tokens').send({ id: 'taken-id', type: 'token', data: 'x' }).expect(201);
    const res = await as(h.app, key).post('/tokenize').send({ a: { type: 'token', data: 'a' }, b: { id: 'taken-id', type: 'token', data: 'b' } }).expect(409);
    expect(res.body.errors).toEqual({ 'b.id': ['A token with this id already exists.'] });
    const twice = await as(h.app, key)
      .post('/tokenize')
      .send([{ id: 'same-id', type: 'token', data: 'a' }, { id: 'same-id', type: 'token', data: 'b' }])
      .expect(409);
    expect(twice.body.errors).toEqual({ '[1].id': ['A token with this id already exists.'] });
    expect(await tokenCount(h, key)).toBe(1);
  });

  it('deduplicates against stored tokens and within the call, and says so in _extras', async () => {
    const first = await as(h.app, key).post('/tokens').send({ type: 'token', data: 'dup', deduplicate_token: true }).expect(201);
    const res = await as(h.app, key)
      .post('/tokenize')
      .send([
        { type: 'token', data: 'dup', deduplicate_token: true },
        { type: 'token', data: 'fresh', deduplicate_token: true },
        { type: 'token', data: 'fresh', deduplicate_token: true },
      ])
      .expect(201);
    expect(res.body.map((t: { _extras: { deduplicated: boolean } }) => t._extras.deduplicated)).toEqual([true, false, true]);
    expect(res.body[0].id).toBe(first.body.id);
    expect(res.body[2].id).toBe(res.body[1].id);
    expect(await tokenCount(h, key)).toBe(2);
  });

  it('answers a token deduplicated for a key that may not read it with its identity and _extras only', async () => {
    const first = await as(h.app, key).post('/tokens').send({ type: 'token', data: 'dup', deduplicate_token: true }).expect(201);
    const creator = await privateKey(h, 'token:create');
    const res = await as(h.app, creator).post('/tokenize').send([{ type: 'token', data: 'dup', deduplicate_token: true }]).expect(201);
    const { id, type, tenant_id, fingerprint, containers } = first.body;
    expect(res.body).toEqual([{ id, type, tenant_id, fingerprint, containers, _extras: { deduplicated: true } }]);
  });

  it('refuses more tokens than SVC_TOKENIZE_LIMIT, naming the limit, counting values as well as requests', async () => {
    const small = await harness({ SVC_TOKENIZE_LIMIT: '3' });
    const k = await privateKey(small, 'token:create', 'token:search');
    await as(small.app, k).post('/tokenize').send(['a', 'b', card(VISA)]).expect(201);
    const res = await as(small.app, k).post('/tokenize').send(['a', 'b', { c: 'c', d: card(VISA) }]).expect(400);
    expect(res.body.errors.body[0]).toMatch(/At most 3 tokens.*SVC_TOKENIZE_LIMIT/);
    expect(await tokenCount(small, k)).toBe(3);
    const hundred = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const ids = (await as(h.app, key).post('/tokenize').send(hundred).expect(201)).body as string[];
    expect(new Set(ids).size).toBe(100);
    await as(h.app, key).post('/tokenize').send([...hundred, 'one more']).expect(400);
  });

  it('checks access per token: a rule that does not cover one container refuses the whole call with its path', async () => {
    const scoped = await applicationKey(h, {
      name: 'cards only',
      type: 'private',
      rules: [{ description: 'pci', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    const res = await as(h.app, scoped).post('/tokenize').send({ c: card(VISA), s: 'general data' }).expect(403);
    expect(Object.keys(res.body.errors)).toEqual(['s']);
    expect(await tokenCount(h, key)).toBe(0);
    const ok = await as(h.app, scoped).post('/tokenize').send({ c: card(VISA) }).expect(201);
    expect(ok.body.c.data.number).toBe(VISA);
  });

  it('shows each created token through the create transform, as POST /tokens does', async () => {
    const masked = await privateKey(h, 'token:create');
    const res = await as(h.app, masked).post('/tokenize').send({ c: card(VISA) }).expect(201);
    expect(res.body.c.data).toEqual({ number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 });
  });

  it('makes tokens from token intents, and gives every intent back when the call fails', async () => {
    const intents = await privateKey(h, 'token:intent:create', 'token:intent:read');
    const intent = async () =>
      (await as(h.app, intents).post('/token-intents').send({ type: 'card', data: card(VISA).data }).expect(201)).body.id as string;
    const [first, second] = [await intent(), await intent()];

    const failed = await as(h.app, key)
      .post('/tokenize')
      .send({ a: { type: 'card', token_intent_id: first }, b: { type: 'card', token_intent_id: first }, c: { type: 'card', token_intent_id: second } })
      .expect(400);
    expect(Object.keys(failed.body.errors)).toEqual(['b.token_intent_id']);
    await as(h.app, intents).get(`/token-intents/${first}`).expect(200);
    await as(h.app, intents).get(`/token-intents/${second}`).expect(200);

    const bad = await as(h.app, key).post('/tokenize').send([{ type: 'card', token_intent_id: first }, { type: 'nope', data: 'x' }]).expect(400);
    expect(Object.keys(bad.body.errors)).toEqual(['[1].type']);
    await as(h.app, intents).get(`/token-intents/${first}`).expect(200);

    const res = await as(h.app, key).post('/tokenize').send({ a: { type: 'card', token_intent_id: first }, c: { token_intent_id: second, type: 'card' } }).expect(201);
    expect(res.body.a.data).toEqual({ number: VISA, expiration_month: 12, expiration_year: 2030 });
    await as(h.app, intents).get(`/token-intents/${first}`).expect(404);
    await as(h.app, intents).get(`/token-intents/${second}`).expect(404);
    const third = await intent();
    const untyped = await as(h.app, key).post('/tokenize').send({ card: { token_intent_id: third } }).expect(201);
    expect(untyped.body.card).toMatchObject({ type: 'card', data: { number: VISA } });
    await as(h.app, intents).get(`/token-intents/${third}`).expect(404);
    const again = await as(h.app, key).post('/tokenize').send([{ type: 'card', token_intent_id: first }]).expect(400);
    expect(Object.keys(again.body.errors)).toEqual(['[0].token_intent_id']);
    expect(await tokenCount(h, key)).toBe(3);
  });

  it("answers the call's own error when an intent cannot be given back, never the store's", async () => {
    const intents = await privateKey(h, 'token:intent:create');
    const id = (await as(h.app, intents).post('/token-intents').send({ type: 'card', data: card(VISA).data }).expect(201)).body.id as string;
    const store = h.store.tokenIntents;
    const create = store.create.bind(store);
    store.create = async () => {
      throw new Error('the store refused the intent back');
    };
    try {
      const res = await as(h.app, key).post('/tokenize').send([{ type: 'card', token_intent_id: id }, { type: 'nope', data: 'x' }]).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['[1].type']);
      const single = await as(h.app, key).post('/tokens').send({ type: 'card', token_intent_id: 'no-such-intent', mask: 1 });
      expect(single.status).toBe(400);
    } finally {
      store.create = create;
    }
  });

  it('needs token:create, a key and a JSON body', async () => {
    await as(h.app, await privateKey(h, 'token:read')).post('/tokenize').send(['a']).expect(403);
    await request(h.app).post('/tokenize').send(['a']).expect(401);
    const empty = await as(h.app, key).post('/tokenize').expect(400);
    expect(Object.keys(empty.body.errors)).toEqual(['body']);
    await as(h.app, key).post('/tokenize').set('Content-Type', 'text/plain').send('a').expect(415);
  });
});

describe('POST /detokenize', () => {
  let h: Harness;
  let reveal: string;
  let cardId: string;
  let ssnId: string;

  beforeEach(async () => {
    h = await harness();
    reveal = await privateKey(h, 'token:create', 'token:read', 'token:use');
    cardId = (await as(h.app, reveal).post('/tokens').send(card(VISA, { metadata: { owner: 'ada' } })).expect(201)).body.id;
    ssnId = (await as(h.app, reveal).post('/tokens').send({ type: 'social_security_number', data: '123-45-6789' }).expect(201)).body.id;
  });

  it('replaces every expression with what it names, in any shape, and passes other values through', async () => {
    const body = {
      number: `{{ ${cardId} | json: '$.number' }}`,
      card: `{{${cardId}}}`,
      whole: `{{ token: ${cardId} }}`,
      owner: `{{ token: ${cardId} | json: "$.metadata.owner" }}`,
      list: [`{{ ${ssnId} }}`, 'plain', 7, null, { deep: `{{ ${ssnId} }}` }],
      sentence: `SSN {{ ${ssnId} }} and card {{ ${cardId} | json: '$.number' }}.`,
      not_expression: '{{ data.number | last4 }}',
    };
    const res = await as(h.app, reveal).post('/detokenize').send(body).expect(200);
    expect(res.body.number).toBe(VISA);
    expect(res.body.card).toEqual({ number: VISA, expiration_month: 12, expiration_year: 2030, cvc: '123' });
    expect(res.body.whole).toMatchObject({ id: cardId, type: 'card', data: { number: VISA }, metadata: { owner: 'ada' } });
    expect(res.body.owner).toBe('ada');
    expect(res.body.list).toEqual(['123-45-6789', 'plain', 7, null, { deep: '123-45-6789' }]);
    expect(res.body.sentence).toBe(`SSN 123-45-6789 and card ${VISA}.`);
    expect(res.body.not_expression).toBe('{{ data.number | last4 }}');
  });

  it('renders under the read transform: masked data for a caller without reveal', async () => {
    const masked = await privateKey(h, 'token:read');
    const res = await as(h.app, masked).post('/detokenize').send({ c: `{{ ${cardId} | json: '$.number' }}`, s: `{{ ${ssnId} }}` }).expect(200);
    expect(res.body).toEqual({ c: 'XXXXXXXXXXXX4242', s: 'XXX-XX-6789' });
  });

  it('fails the whole call with 403 naming the path of a token the caller may not read', async () => {
    const pciOnly = await applicationKey(h, {
      name: 'pci reader',
      type: 'private',
      rules: [{ description: 'pci', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] }],
    });
    const res = await as(h.app, pciOnly).post('/detokenize').send({ ok: `{{ ${cardId} }}`, no: [`{{ ${ssnId} }}`] }).expect(403);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(Object.keys(res.body.errors)).toEqual(['no[0]']);
    expect(JSON.stringify(res.body)).not.toContain(VISA);
  });

  it("answers an unknown, expired or another tenant's id as 400 naming each path, the same for all three", async () => {
    const other = await h.createTenant('Other');
    const theirs = (await as(h.app, other.management.key).post('/applications').send({ name: 'p', type: 'private', permissions: ['token:create'] }).expect(201)).body.key;
    const theirId = (await as(h.app, theirs).post('/tokens').send({ type: 'token', data: 'secret' }).expect(201)).body.id;
    const expiring = (await as(h.app, reveal).post('/tokens').send({ type: 'token', data: 'soon', expires_at: '2026-01-01T00:10:00Z' }).expect(201)).body.id;
    h.clock.advance(11 * 60_000);
    const res = await as(h.app, reveal)
      .post('/detokenize')
      .send({ a: '{{ no-such-token }}', b: `{{ ${theirId} }}`, c: `{{ ${expiring} }}`, d: `{{ ${cardId} }}` })
      .expect(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['a', 'b', 'c']);
    const shape = (m: string) => m.replace(/'[^']*'/, "'ID'");
    expect(new Set([res.body.errors.a[0], res.body.errors.b[0], res.body.errors.c[0]].map(shape)).size).toBe(1);
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });

  it('refuses a json path that matches nothing, naming the path, and the json filter only takes simple paths', async () => {
    const res = await as(h.app, reveal).post('/detokenize').send({ x: `{{ ${cardId} | json: '$.nope' }}` }).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['x']);
    const script = await as(h.app, reveal).post('/detokenize').send({ x: `{{ ${cardId} | json: '$..*' }}` }).expect(400);
    expect(Object.keys(script.body.errors)).toEqual(['x']);
  });

  it('limits the distinct tokens named to SVC_DETOKENIZE_LIMIT; one token named many times counts once', async () => {
    const small = await harness({ SVC_DETOKENIZE_LIMIT: '2' });
    const k = await privateKey(small, 'token:create', 'token:read', 'token:use');
    const ids = (await as(small.app, k).post('/tokenize').send(['a', 'b', 'c']).expect(201)).body as string[];
    const same = await as(small.app, k).post('/detokenize').send(Array.from({ length: 50 }, () => `{{ ${ids[0]} }}`)).expect(200);
    expect(same.body.every((v: string) => v === 'a')).toBe(true);
    await as(small.app, k).post('/detokenize').send([`{{ ${ids[0]} }}`, `{{ ${ids[1]} }}`]).expect(200);
    const res = await as(small.app, k).post('/detokenize').send(ids.map((id) => `{{ ${id} }}`)).expect(400);
    expect(res.body.errors.body[0]).toMatch(/SVC_DETOKENIZE_LIMIT/);
  });

  it('round-trips a tokenized body: detokenize(tokenize(x)) gives x back for bare values', async () => {
    const body = { name: 'Ada Lovelace', age: 36, admin: false, tags: ['a', 'b'], none: null };
    const ids = (await as(h.app, reveal).post('/tokenize').send(body).expect(201)).body;
    const expressions = JSON.parse(JSON.stringify(ids), (_k, v) => (typeof v === 'string' ? `{{ ${v} }}` : v));
    expect((await as(h.app, reveal).post('/detokenize').send(expressions).expect(200)).body).toEqual(body);
  });

  it('needs token:read and a key; a body without expressions comes back as it was', async () => {
    await as(h.app, await privateKey(h, 'token:create')).post('/detokenize').send({ a: `{{ ${cardId} }}` }).expect(403);
    await request(h.app).post('/detokenize').send({}).expect(401);
    expect((await as(h.app, reveal).post('/detokenize').send({ a: 1, b: ['x'] }).expect(200)).body).toEqual({ a: 1, b: ['x'] });
  });
});
