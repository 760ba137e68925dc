import fc from 'fast-check';
import { applicationKey, as, harness, type Harness, privateKey } from './harness';

/**
 * POST /tokenize and POST /detokenize under attack: inputs a hostile or careless caller sends, each answered with a
 * 4xx that names the right place, reveals nothing and changes nothing.
 */

async function tokenCount(h: Harness, key: string): Promise<number> {
  const res = await as(h.app, key).post('/tokens/search').send({ query: '', size: 1 }).expect(200);
  return res.body.pagination.total_items as number;
}

describe('bulk calls under attack', () => {
  let h: Harness;
  let key: string;

  beforeEach(async () => {
    h = await harness();
    key = await privateKey(h, 'token:create', 'token:read', 'token:use', 'token:search');
  });

  describe('errors keyed by JSON path', () => {
    it('name keys holding dots or brackets, and the empty key, unambiguously: no error hides another', async () => {
      const res = await as(h.app, key)
        .post('/tokenize')
        .send({
          'a.b': { type: 'nope', data: 'x' },
          a: { b: { type: 'nope', data: 'y' } },
          '': { type: 'nope', data: 1 },
          'x[0]': { type: 'nope', data: 1 },
          x: [{ type: 'nope', data: 1 }],
          "it's": { type: 'nope', data: 1 },
        })
        .expect(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(["[''].type", "['a.b'].type", "['it\\'s'].type", "['x[0]'].type", 'a.b.type', 'x[0].type'].sort());
      expect(await tokenCount(h, key)).toBe(0);

      const detokenized = await as(h.app, key).post('/detokenize').send({ '': '{{ nope1 }}', 'a.b': '{{ nope2 }}', a: { b: '{{ nope3 }}' }, 'é ü': '{{ nope4 }}' }).expect(400);
      expect(detokenized.body.errors).toEqual({
        "['']": ["No token 'nope1' exists (or it has expired)."],
        "['a.b']": ["No token 'nope2' exists (or it has expired)."],
        'a.b': ["No token 'nope3' exists (or it has expired)."],
        'é ü': ["No token 'nope4' exists (or it has expired)."],
      });
    });

    it('name the root of a detokenize body "body", and a key of it by its name', async () => {
      const root = await as(h.app, key).post('/detokenize').send(JSON.stringify('{{ nope }}')).set('Content-Type', 'application/json').expect(400);
      expect(Object.keys(root.body.errors)).toEqual(['body']);
      const keyed = await as(h.app, key).post('/detokenize').send({ constructor: '{{ nope }}', toString: ['{{ nope }}'] }).expect(400);
      expect(Object.keys(keyed.body.errors).sort()).toEqual(['constructor', 'toString[0]']);
    });
  });

  describe('the root of the body', () => {
    it('is a request named from its own fields, or a value, or null; errors about it name its fields or the body', async () => {
      const invalid = await as(h.app, key).post('/tokenize').send({ type: 'card_number', data: '4242424242424241' }).expect(400);
      expect(Object.keys(invalid.body.errors)).toEqual(['data']);
      await as(h.app, key).post('/tokens').send({ id: 'root-id', type: 'token', data: 'x' }).expect(201);
      const taken = await as(h.app, key).post('/tokenize').send({ id: 'root-id', type: 'token', data: 'y' }).expect(409);
      expect(taken.body.errors).toEqual({ id: ['A token with this id already exists.'] });
      const scoped = await applicationKey(h, {
        name: 'pci only',
        type: 'private',
        rules: [{ description: 'pci', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:create'] }],
      });
      const refused = await as(h.app, scoped).post('/tokenize').set('Content-Type', 'application/json').send('"general text"').expect(403);
      expect(Object.keys(refused.body.errors)).toEqual(['body']);
      const nothing = await as(h.app, key).post('/tokenize').set('Content-Type', 'application/json').send('null').expect(201);
      expect(nothing.text).toBe('null');
      expect(await tokenCount(h, key)).toBe(1);
    });

    it('counts every value toward SVC_TOKENIZE_LIMIT however deep it sits', async () => {
      const small = await harness({ SVC_TOKENIZE_LIMIT: '2' });
      const k = await privateKey(small, 'token:create', 'token:search');
      const res = await as(small.app, k).post('/tokenize').send([[['a']], { b: [[{ c: 'c' }]] }, [[[[true]]]]]).expect(400);
      expect(res.body.errors.body[0]).toMatch(/At most 2 tokens.*this request has 3/);
      expect(await tokenCount(small, k)).toBe(0);
    });
  });

  describe('the size of a detokenize answer', () => {
    it('is bounded: one small token named many times cannot make an answer many times the body limit', async () => {
      const small = await harness({ SVC_BODY_LIMIT: '64kb' });
      const k = await privateKey(small, 'token:create', 'token:read', 'token:use');
      await as(small.app, k).post('/tokens').send({ id: 'big', type: 'token', data: 'x'.repeat(60_000) }).expect(201);
      // 80 bytes of body would answer 120 KB: under ten times the body limit, so it is fine.
      const fine = await as(small.app, k).post('/detokenize').send(['{{big}}', '{{ big }}']).expect(200);
      expect(fine.body[1]).toHaveLength(60_000);
      // 1,000 names of it would answer 60 MB.
      for (const body of [Array.from({ length: 1000 }, () => '{{big}}'), ['{{big}}'.repeat(1000)], { a: '{{ token: big }}', b: Array(1000).fill('{{ token: big | json: "$.data" }}') }]) {
        const res = await as(small.app, k).post('/detokenize').send(body).expect(400);
        expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
        expect(Object.keys(res.body.errors)).toEqual(['body']);
        expect(res.body.errors.body[0]).toMatch(/at most 655360 characters.*10 × SVC_BODY_LIMIT/);
      }
    });

    it('is never a 5xx, even when the text would be longer than any string can be', async () => {
      await as(h.app, key).post('/tokens').send({ id: 'big', type: 'token', data: 'x'.repeat(100_000) }).expect(201);
      // 42 KB of body: 6,000 copies of 100 KB in one string is past the longest string V8 can hold.
      const res = await as(h.app, key).post('/detokenize').send(['{{big}}'.repeat(6000)]).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['body']);
    });

    it('names each wrong json path once per string, however many times a string repeats it', async () => {
      await as(h.app, key).post('/tokens').send({ id: 'doc', type: 'token', data: { a: 1 } }).expect(201);
      const text = Array.from({ length: 500 }, (_, i) => `{{ doc | json: '$.b${i}' }}`).join(' ');
      const res = await as(h.app, key).post('/detokenize').send({ s: text }).expect(400);
      expect(res.body.errors).toEqual({ s: ['json: the JSONPath expression must match exactly one value.'] });
      // Every string that uses a wrong path is named, not only the first.
      const twice = await as(h.app, key).post('/detokenize').send({ a: "{{ doc | json: '$.x' }}", b: ["{{ doc | json: '$.x' }}"] }).expect(400);
      expect(Object.keys(twice.body.errors)).toEqual(['a', 'b[0]']);
    });
  });

  describe('all or nothing', () => {
    const VISA = '4242424242424242';
    const cardData = { number: VISA, expiration_month: 12, expiration_year: 2030, cvc: '123' };

    it('gives back every token intent when the call fails for a taken id, a refused container or a foreign intent', async () => {
      const intents = await privateKey(h, 'token:intent:create', 'token:intent:read');
      const intent = async (k = intents, app = h.app) => (await as(app, k).post('/token-intents').send({ type: 'card', data: cardData }).expect(201)).body.id as string;
      const mine = await intent();
      await as(h.app, key).post('/tokens').send({ id: 'taken', type: 'token', data: 'x' }).expect(201);
      await as(h.app, key).post('/tokenize').send([{ type: 'card', token_intent_id: mine }, { id: 'taken', type: 'token', data: 'y' }]).expect(409);
      await as(h.app, intents).get(`/token-intents/${mine}`).expect(200);

      const scoped = await applicationKey(h, {
        name: 'general only',
        type: 'private',
        rules: [{ description: 'general', priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:create'] }],
      });
      const refused = await as(h.app, scoped).post('/tokenize').send({ c: { type: 'card', token_intent_id: mine }, t: 'text' }).expect(403);
      expect(Object.keys(refused.body.errors)).toEqual(['c']);
      await as(h.app, intents).get(`/token-intents/${mine}`).expect(200);

      const other = await h.createTenant('Other');
      const theirKey = (await as(h.app, other.management.key).post('/applications').send({ name: 'p', type: 'private', permissions: ['token:intent:create'] }).expect(201)).body.key;
      const theirs = await intent(theirKey);
      const foreign = await as(h.app, key).post('/tokenize').send({ a: { type: 'card', token_intent_id: mine }, b: { type: 'card', token_intent_id: theirs } }).expect(400);
      expect(Object.keys(foreign.body.errors)).toEqual(['b.token_intent_id']);
      expect(JSON.stringify(foreign.body)).not.toContain(VISA);
      await as(h.app, intents).get(`/token-intents/${mine}`).expect(200);
      expect(await tokenCount(h, key)).toBe(1);
    });

    it('keeps an intent used up once its token is stored, even when the answer then fails', async () => {
      const intents = await privateKey(h, 'token:intent:create', 'token:intent:read');
      const intent = (await as(h.app, intents).post('/token-intents').send({ type: 'card', data: cardData }).expect(201)).body.id as string;
      // A stored token that cannot be opened (a fault): deduplicating to it stores the call, then fails its answer.
      const broken = (await as(h.app, key).post('/tokens').send({ type: 'token', data: 'dup', deduplicate_token: true }).expect(201)).body.id;
      const stored = (await h.store.tokens.findById(h.tenant.tenant.id, broken, h.clock.now()))!;
      const sealedData = Uint8Array.from(stored.sealedData, (byte, i) => (i === stored.sealedData.length - 1 ? byte ^ 1 : byte));
      expect(await h.store.tokens.update({ ...stored, sealedData }, h.clock.now())).toEqual({ status: 'updated' });

      await as(h.app, key).post('/tokenize').send([{ type: 'card', token_intent_id: intent }, { type: 'token', data: 'dup', deduplicate_token: true }]).expect(500);
      expect(await tokenCount(h, key)).toBe(2);
      // Its card token was stored: the intent must not come back to make a second one.
      await as(h.app, intents).get(`/token-intents/${intent}`).expect(404);
      await as(h.app, key).post('/tokenize').send([{ type: 'card', token_intent_id: intent }]).expect(400);
      expect(await tokenCount(h, key)).toBe(2);
    });

    it('stores one batch of racing identical calls: the others are 409 and store nothing', async () => {
      const body = [{ id: 'race-id', type: 'token', data: 'a' }, 'b', { type: 'card', data: cardData }];
      const answers = await Promise.all(Array.from({ length: 8 }, () => as(h.app, key).post('/tokenize').send(body)));
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      expect(await tokenCount(h, key)).toBe(3);
    });

    it('keeps one token per fingerprint when deduplicating calls race, each answering it', async () => {
      const body = { a: { type: 'token', data: 'same', deduplicate_token: true }, b: { type: 'token', data: 'same', deduplicate_token: true } };
      const answers = await Promise.all(Array.from({ length: 8 }, () => as(h.app, key).post('/tokenize').send(body).expect(201)));
      const ids = new Set(answers.flatMap((r) => [r.body.a.id, r.body.b.id]));
      expect(ids.size).toBe(1);
      expect(answers.filter((r) => !r.body.a._extras.deduplicated)).toHaveLength(1);
      expect(await tokenCount(h, key)).toBe(1);
    });

    it('takes the id of an expired token, in the store or not yet swept', async () => {
      await as(h.app, key).post('/tokens').send({ id: 'short-lived', type: 'token', data: 'x', expires_at: '2026-01-01T00:10:00Z' }).expect(201);
      await as(h.app, key).post('/tokenize').send([{ id: 'short-lived', type: 'token', data: 'y' }]).expect(409);
      h.clock.advance(11 * 60_000);
      const res = await as(h.app, key).post('/tokenize').send([{ id: 'short-lived', type: 'token', data: 'y' }]).expect(201);
      expect(res.body[0].data).toBe('y');
    });

    it('refuses ids that two id expressions make alike, naming the second', async () => {
      const res = await as(h.app, key)
        .post('/tokenize')
        .send({ a: { type: 'token', data: { n: 'one' }, id: "user-{{ 'one' | upcase }}" }, b: { type: 'token', data: { n: 'two' }, id: "user-{{ 'ONE' }}" } })
        .expect(409);
      expect(res.body.errors).toEqual({ 'b.id': ['A token with this id already exists.'] });
      expect(await tokenCount(h, key)).toBe(0);
    });
  });

  describe('detokenize reads', () => {
    const VISA = '4242424242424242';
    const cardData = { number: VISA, expiration_month: 12, expiration_year: 2030, cvc: '123' };
    let cardId: string;

    beforeEach(async () => {
      cardId = (await as(h.app, key).post('/tokens').send({ type: 'card', data: cardData }).expect(201)).body.id;
    });

    it('leaves keys alone, even keys that are expressions', async () => {
      const body = { [`{{ ${cardId} }}`]: `{{ ${cardId} | json: '$.number' }}`, nested: { [`{{ token: ${cardId} }}`]: 1 } };
      const res = await as(h.app, key).post('/detokenize').send(body).expect(200);
      expect(res.body).toEqual({ [`{{ ${cardId} }}`]: VISA, nested: { [`{{ token: ${cardId} }}`]: 1 } });
    });

    it('drops the cvc once its retention has passed, and a json path to it then matches nothing', async () => {
      expect((await as(h.app, key).post('/detokenize').send([`{{ ${cardId} | json: '$.cvc' }}`]).expect(200)).body).toEqual(['123']);
      h.clock.advance(3600_000 + 1);
      expect((await as(h.app, key).post('/detokenize').send([`{{ ${cardId} }}`]).expect(200)).body[0]).toEqual({ number: VISA, expiration_month: 12, expiration_year: 2030 });
      const res = await as(h.app, key).post('/detokenize').send([`{{ ${cardId} | json: '$.cvc' }}`]).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['[0]']);
      const whole = await as(h.app, key).post('/detokenize').send([`{{ token: ${cardId} }}`]).expect(200);
      expect(whole.text).not.toContain('"123"');
    });

    it('renders under redact: no data, and a path into data matches nothing', async () => {
      const redact = await applicationKey(h, {
        name: 'redact',
        type: 'private',
        rules: [{ description: 'r', priority: 1, container: '/', transform: 'redact', permissions: ['token:read'] }],
      });
      const res = await as(h.app, redact).post('/detokenize').send({ d: `{{ ${cardId} }}`, t: `{{ token: ${cardId} }}`, s: `n={{ ${cardId} }}` }).expect(200);
      expect(res.body.d).toBeNull();
      expect(res.body.t).toMatchObject({ id: cardId });
      expect(res.body.t.data).toBeUndefined();
      expect(res.body.s).toBe('n=');
      // Every value but the token's random ids and fingerprint, which may hold the digits by chance.
      const { id: _id, tenant_id: _tenant, fingerprint: _fingerprint, created_by: _by, ...shown } = res.body.t;
      expect(JSON.stringify({ ...res.body, t: shown })).not.toContain('4242');
      await as(h.app, redact).post('/detokenize').send({ n: `{{ token: ${cardId} | json: '$.data.number' }}` }).expect(400);
    });

    it('reaches only what the caller sees of the token through json paths, never its prototype', async () => {
      const masked = await privateKey(h, 'token:read');
      // JSON values have no other members: not a prototype's, nor a string's length.
      for (const path of ['$.constructor', '$.__proto__', "$['__proto__']", '$.toString', '$.number.constructor', '$.number.length', '$.number[0]']) {
        const res = await as(h.app, masked).post('/detokenize').send({ p: `{{ ${cardId} | json: "${path}" }}` });
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(res.text).not.toContain('4242424242424242');
      }
      // A member of what the caller sees is only what its mask shows.
      expect((await as(h.app, masked).post('/detokenize').send({ p: `{{ ${cardId} | json: '$.number' }}` }).expect(200)).body.p).not.toContain('42424242');
    });

    it('keeps every key: a json path to a field the token does not show matches nothing, as one to hidden data does', async () => {
      const plain = (await as(h.app, key).post('/tokens').send({ type: 'token', data: 'x' }).expect(201)).body.id;
      for (const field of ['expires_at', 'modified_by', 'search_indexes']) {
        const expression = `{{ token: ${plain} | json: '$.${field}' }}`;
        const res = await as(h.app, key).post('/detokenize').send({ a: expression, b: [expression], c: `x${expression}` });
        expect({ field, status: res.status, errors: res.body.errors }).toEqual({
          field,
          status: 400,
          errors: { a: [expect.stringMatching(/must match exactly one value/)], 'b[0]': [expect.any(String)], c: [expect.any(String)] },
        });
      }
      const masked = await privateKey(h, 'token:read');
      const hidden = await as(h.app, masked).post('/detokenize').send({ b: [`{{ token: ${plain} | json: '$.data' }}`] }).expect(400);
      expect(Object.keys(hidden.body.errors)).toEqual(['b[0]']);
      expect((await as(h.app, key).post('/detokenize').send({ m: `{{ token: ${plain} | json: '$.metadata' }}` }).expect(200)).body).toEqual({ m: {} });
    });

    it('renders once: data that is itself an expression comes back as text, never read again', async () => {
      const pciOnly = await applicationKey(h, {
        name: 'pci',
        type: 'private',
        rules: [{ description: 'pci', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
      });
      const planted = `{{ ${cardId} | json: '$.number' }}`;
      const carrier = (await as(h.app, pciOnly).post('/tokens').send({ type: 'token', data: planted, containers: ['/pci/low/'] }).expect(201)).body.id;
      const secret = (await as(h.app, key).post('/tokens').send({ type: 'token', data: 'general secret' }).expect(201)).body.id;
      await as(h.app, pciOnly).post('/tokens').send({ id: 'pci-carrier-2', type: 'token', data: { inner: `{{ ${secret} }}` }, containers: ['/pci/low/'] }).expect(201);
      const res = await as(h.app, pciOnly)
        .post('/detokenize')
        .send({ a: `{{ ${carrier} }}`, b: `see {{ ${carrier} }}`, c: '{{ token: pci-carrier-2 }}', d: "{{ pci-carrier-2 | json: '$.inner' }}" })
        .expect(200);
      expect(res.body.a).toBe(planted);
      expect(res.body.b).toBe(`see ${planted}`);
      expect(res.body.c.data).toEqual({ inner: `{{ ${secret} }}` });
      expect(res.body.d).toBe(`{{ ${secret} }}`);
      expect(res.text).not.toContain('general secret');
    });

    it('answers a session only what its rules let it read', async () => {
      const backend = await privateKey(h, 'session:authorize', 'token:read', 'token:use');
      const pub = (await as(h.app, h.key).post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create', 'token:create'] }).expect(201)).body.key;
      const session = (await as(h.app, pub).post('/sessions').expect(201)).body;
      const other = (await as(h.app, key).post('/tokens').send({ type: 'token', data: 'other' }).expect(201)).body.id;
      await as(h.app, backend)
        .post('/sessions/authorize')
        .send({ nonce: session.nonce, rules: [{ priority: 1, conditions: [{ attribute: 'id', operator: 'equals', value: cardId }], transform: 'reveal', permissions: ['token:read'] }] })
        .expect(200);
      const browser = as(h.app, session.session_key);
      expect((await browser.post('/detokenize').send({ n: `{{ ${cardId} | json: '$.number' }}` }).expect(200)).body.n).toBe(VISA);
      const refused = await browser.post('/detokenize').send({ n: `{{ ${cardId} | json: '$.number' }}`, o: [`x {{ ${other} }}`] }).expect(403);
      expect(Object.keys(refused.body.errors)).toEqual(['o[0]']);
      expect(refused.text).not.toContain(VISA);
      expect(refused.text).not.toContain('"other"');
      // The public key itself creates, and may not read.
      await as(h.app, pub).post('/tokenize').send(['from the browser']).expect(201);
      await as(h.app, pub).post('/detokenize').send([`{{ ${cardId} }}`]).expect(403);
    });

    it('takes ids with spaces and colons, and passes text that only looks like an expression', async () => {
      await as(h.app, key).post('/tokens').send({ id: 'a b:c', type: 'token', data: 'spaced' }).expect(201);
      const body = { a: '{{ a b:c }}', b: '{{a b:c}}', c: '{ { a b:c } }', d: '{{{ a b:c }}}', e: '{{ a b:c | json }}', f: '{{ a b:c | json: $.x }}', g: '{{ a b:c | upcase }}', h: '{{}}', i: '{{ token: }}', j: '{{ | json: "$" }}' };
      const res = await as(h.app, key).post('/detokenize').send(body).expect(200);
      expect(res.body).toEqual({ ...body, a: 'spaced', b: 'spaced', d: '{spaced}' });
    });
  });

  describe('properties', () => {
    /** JSON whose keys are what a careless caller uses: dots, brackets, quotes, braces, prototype names, empty. */
    const jsonKey = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('', 'a.b', 'x[0]', "it's", '{{ k }}', 'constructor', 'toString', 'body', 'é'));
    const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 12 }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(jsonKey, tie('value'), { maxKeys: 4 }),
      ),
    })).value;

    it('detokenize(tokenize(x)) is x for any JSON of values, and every answer keeps the keys', async () => {
      const api = as(h.app, (await privateKey(h, 'token:create', 'token:read', 'token:use')));
      await fc.assert(
        fc.asyncProperty(json, async (body) => {
          const tokenized = await api.post('/tokenize').set('Content-Type', 'application/json').send(JSON.stringify(body));
          expect(tokenized.status).toBe(201);
          const expressions = JSON.parse(tokenized.text, (_k, v) => (typeof v === 'string' ? `{{ ${v} }}` : v));
          const back = await api.post('/detokenize').set('Content-Type', 'application/json').send(JSON.stringify(expressions));
          expect(back.status).toBe(200);
          expect(back.body).toEqual(JSON.parse(JSON.stringify(body)));
        }),
        { seed: 4242, numRuns: 150 },
      );
    }, 60_000);

    it('never answers a 5xx to text around expressions, and leaves text without one as it was', async () => {
      const api = as(h.app, key);
      const id = (await api.post('/tokens').send({ id: 'known-id', type: 'token', data: { a: [1, 'two'] } }).expect(201)).body.id;
      const piece = fc.oneof(
        fc.string({ maxLength: 8 }),
        fc.constantFrom('{{', '}}', '{', '}', '|', "'", '"', ':', 'json', 'token', ' ', id, '$', '$.a', '$.a[1]', "'$.a[0]'", '"$"', `{{ ${id} }}`, `{{ token: ${id} | json: '$.data.a[1]' }}`),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')), { maxLength: 5 }), async (strings) => {
          const res = await api.post('/detokenize').send(strings);
          expect(res.status).toBeLessThan(500);
          if (res.status === 200) {
            strings.forEach((s, i) => {
              if (!s.includes('{{')) expect(res.body[i]).toBe(s);
            });
          } else {
            expect(res.status).toBe(400);
            expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
            expect(res.text).not.toContain('"two"');
          }
        }),
        { seed: 4243, numRuns: 300 },
      );
    }, 60_000);
  });
});
