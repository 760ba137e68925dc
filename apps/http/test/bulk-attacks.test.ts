import { as, harness, type Harness, privateKey } from './harness';

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
});
