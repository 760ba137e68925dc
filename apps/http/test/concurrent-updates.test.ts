import { holdReads } from '@svc/core/testing';
import { as, harness, type Harness, privateKey } from './harness';

/**
 * PATCHes that race on one token: each answers 200 only once its change is in the token, so none is lost.
 *
 * Through supertest one request often finishes before the next one reaches the store, which would make these tests
 * pass without any protection. So the reads of the racing requests are held until all of them have read: every
 * request then works from the same version, and all but one lose the store's compare-and-set and must retry.
 */
describe('concurrent PATCH /tokens/{id}', () => {
  let h: Harness;
  let client: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    client = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:use'));
  });

  const TEN_KEYS = Array.from({ length: 10 }, (_, i) => `k${i}`);
  const ALL_TEN = Object.fromEntries(TEN_KEYS.map((key) => [key, key]));

  const create = async (): Promise<string> =>
    (await client.post('/tokens').send({ type: 'token', data: { start: 'x' }, metadata: { start: 'x' } }).expect(201)).body.id as string;
  const read = async (id: string): Promise<{ data: object; metadata: object; containers: string[] }> =>
    (await client.get(`/tokens/${id}`).expect(200)).body;

  /** Sends the patches at once, each as an RFC 7386 merge patch, and answers their statuses in order. */
  async function race(id: string, patches: readonly object[]): Promise<number[]> {
    holdReads(h.store.tokens, patches.length);
    const answers = await Promise.all(
      patches.map((body) => client.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').send(body)),
    );
    return answers.map((answer) => answer.status);
  }

  it('keeps both metadata keys of two simultaneous patches, 20 times over', async () => {
    for (let round = 0; round < 20; round++) {
      const id = await create();
      expect(await race(id, [{ metadata: { a: '1' } }, { metadata: { b: '2' } }])).toEqual([200, 200]);
      expect((await read(id)).metadata).toEqual({ start: 'x', a: '1', b: '2' });
    }
  });

  it('keeps all ten keys of ten simultaneous data patches', async () => {
    const id = await create();
    expect(await race(id, TEN_KEYS.map((key) => ({ data: { [key]: key } })))).toEqual(TEN_KEYS.map(() => 200));
    expect((await read(id)).data).toEqual({ start: 'x', ...ALL_TEN });
  });

  it('keeps all ten keys of ten simultaneous metadata patches', async () => {
    const id = await create();
    expect(await race(id, TEN_KEYS.map((key) => ({ metadata: { [key]: key } })))).toEqual(TEN_KEYS.map(() => 200));
    expect((await read(id)).metadata).toEqual({ start: 'x', ...ALL_TEN });
  });

  it('keeps a containers patch and a metadata patch sent together', async () => {
    const id = await create();
    expect(await race(id, [{ containers: ['/general/low/'] }, { metadata: { a: '1' } }])).toEqual([200, 200]);
    const token = await read(id);
    expect(token.containers).toEqual(['/general/low/']);
    expect(token.metadata).toEqual({ start: 'x', a: '1' });
  });

  it('answers 409, having changed nothing, when the token changes under every retry', async () => {
    const id = await create();
    const tokens = h.store.tokens;
    const update = tokens.update;
    // Another writer wins every round: the store reports each compare-and-set as lost.
    tokens.update = async () => ({ status: 'conflict' });
    try {
      const res = await client.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').send({ metadata: { a: '1' } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ status: 409, title: 'Conflict' });
    } finally {
      tokens.update = update;
    }
    expect((await read(id)).metadata).toEqual({ start: 'x' });
  });
});
