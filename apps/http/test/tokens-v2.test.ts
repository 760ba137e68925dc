import { BasisTheoryClient } from '@basis-theory/node-sdk';
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { applicationKey, as, harness, type Harness, privateKey } from './harness';

type Api = ReturnType<typeof as>;
interface Listed {
  readonly id: string;
  readonly data?: unknown;
}
interface CursorAnswer {
  readonly pagination: { readonly page_size: number; readonly next?: string };
  readonly data: Listed[];
}

/** One endpoint's page: GET /v2/tokens with `params`, or POST /v2/tokens/search with `params` as the body. */
type PageOf = (api: Api, params: Record<string, unknown>) => request.Test;
const listPage: PageOf = (api, params) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.append(key, String(value));
  return api.get(`/v2/tokens?${search.toString()}`);
};
const searchPage: PageOf = (api, params) => api.post('/v2/tokens/search').send(params);
const ENDPOINTS: ReadonlyArray<readonly [string, PageOf, Record<string, unknown>]> = [
  ['GET /v2/tokens', listPage, {}],
  ['POST /v2/tokens/search', searchPage, { query: '' }],
];

/**
 * Walks every page of a query: checks each envelope (page_size, `next` absent exactly on the last page) and runs
 * `between` after every page but the last. Returns the ids, in order.
 */
async function walk(api: Api, page: PageOf, params: Record<string, unknown>, size: number, between?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let start: string | undefined;
  for (let n = 0; n < 500; n++) {
    const body = (await page(api, { ...params, size, start }).expect(200)).body as CursorAnswer;
    expect(body.pagination.page_size).toBe(size);
    expect(body.data.length).toBeLessThanOrEqual(size);
    ids.push(...body.data.map((t) => t.id));
    if (!('next' in body.pagination)) return ids;
    expect(body.data).toHaveLength(size);
    start = body.pagination.next;
    await between?.();
  }
  throw new Error('the walk did not end');
}

const counts = (ids: readonly string[]): Map<string, number> => {
  const seen = new Map<string, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  return seen;
};

/** The field names of a 400 problem+json. */
function fieldsOf(res: request.Response): string[] {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  return Object.keys(res.body.errors ?? {});
}

describe('cursor-paged token lists (GET /v2/tokens, POST /v2/tokens/search)', () => {
  let h: Harness;
  let writer: Api;
  let reader: Api;
  const start = new Date('2026-01-01T00:00:00.000Z').getTime();

  /** Creates tokens `count` times; every 4th moves the clock on by one millisecond, so most tokens share their instant. */
  async function createMany(count: number, body: (i: number) => object = () => ({ type: 'token', data: 'x' })): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      if (i % 4 === 0) h.clock.advance(1);
      ids.push((await writer.post('/tokens').send(body(i)).expect(201)).body.id as string);
    }
    return ids;
  }

  beforeEach(async () => {
    h = await harness();
    writer = as(h.app, await privateKey(h, 'token:create', 'token:delete'));
    reader = as(h.app, await privateKey(h, 'token:read', 'token:search', 'token:use'));
  });

  it.each(ENDPOINTS)('%s walks 45 tokens 10 at a time, each exactly once, while tokens are created between pages', async (_name, page, params) => {
    const before = await createMany(45);
    const inserted: string[] = [];
    const seen = await walk(reader, page, params, 10, async () => {
      const resume = h.clock.now();
      // One newer than the walk, and one in the same millisecond as tokens already seen and tokens not yet seen.
      h.clock.advance(1);
      inserted.push((await writer.post('/tokens').send({ type: 'token', data: 'new' }).expect(201)).body.id);
      h.clock.set(new Date(start + 1 + (inserted.length % 12)));
      inserted.push((await writer.post('/tokens').send({ type: 'token', data: 'tie' }).expect(201)).body.id);
      h.clock.set(resume);
    });
    const tally = counts(seen);
    for (const id of before) expect([id, tally.get(id)]).toEqual([id, 1]);
    expect([...tally.values()].every((n) => n === 1)).toBe(true);
    // Newest first, as GET /tokens orders them.
    const all = ((await reader.get('/tokens?size=100').expect(200)).body.data as Listed[]).map((t) => t.id);
    expect(seen).toEqual(all.filter((id) => tally.has(id)));
  });

  it.each(ENDPOINTS)('%s says there is no next page once the last is reached, also when it is exactly full', async (_name, page, params) => {
    await createMany(20);
    const first = (await page(reader, { ...params, size: 10 }).expect(200)).body as CursorAnswer;
    expect(first.pagination.next).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = (await page(reader, { ...params, size: 10, start: first.pagination.next }).expect(200)).body as CursorAnswer;
    expect(second.data).toHaveLength(10);
    expect(second.pagination).toEqual({ page_size: 10 });
    const byDefault = await page(as(h.app, await privateKey(h, 'token:read', 'token:search')), { ...params }).expect(200);
    expect(byDefault.body.pagination).toEqual({ page_size: 20 });
    expect(byDefault.body.data).toHaveLength(20);
  });

  it('filters GET /v2/tokens by type, container, fingerprint and metadata in both forms', async () => {
    const make = async (name: string, body: object): Promise<[string, string]> => {
      h.clock.advance(1);
      return [name, (await writer.post('/tokens').send(body).expect(201)).body.id];
    };
    const ids = Object.fromEntries([
      await make('gold card', { type: 'card_number', data: '4242424242424242', containers: ['/pci/high/'], metadata: { plan: 'Gold', tier: '1' } }),
      await make('silver card', { type: 'card_number', data: '4000056655665556', containers: ['/pci/'], metadata: { plan: 'silver' } }),
      await make('gold token', { type: 'token', data: 'a', containers: ['/pci/'], metadata: { plan: 'gold', tier: '1' } }),
      await make('ssn', { type: 'social_security_number', data: '123-45-6789' }),
      await make('same card', { type: 'card_number', data: '4242424242424242' }),
    ]);
    const names = (found: Listed[]): string[] => found.map((t) => Object.entries(ids).find(([, id]) => id === t.id)![0]);
    const list = async (query: string): Promise<string[]> => names((await reader.get(`/v2/tokens?${query}`).expect(200)).body.data);
    const fingerprint = (await reader.get(`/tokens/${ids['gold card']}`).expect(200)).body.fingerprint as string;

    expect(await list('type=card_number')).toEqual(['same card', 'silver card', 'gold card']);
    expect(await list('type=card_number&type=token')).toEqual(['same card', 'gold token', 'silver card', 'gold card']);
    expect(await list('container=/pci/')).toEqual(['gold token', 'silver card']);
    // A card number without containers is in /pci/high/.
    expect(await list(`container=${encodeURIComponent('/pci/*')}`)).toEqual(['same card', 'gold token', 'silver card', 'gold card']);
    expect(await list(`fingerprint=${fingerprint}`)).toEqual(['same card', 'gold card']);
    expect(await list('metadata.plan=GOLD')).toEqual(['gold token', 'gold card']);
    expect(await list(`metadata=${encodeURIComponent('{"plan":"gold","tier":"1"}')}`)).toEqual(['gold token', 'gold card']);
    expect(await list(`type=card_number&container=${encodeURIComponent('/pci/*')}&metadata.plan=gold&fingerprint=${fingerprint}`)).toEqual(['gold card']);
    expect(await list('type=token&metadata.plan=silver')).toEqual([]);

    expect(fieldsOf(await reader.get('/v2/tokens?type=nope'))).toEqual(['type']);
    expect(fieldsOf(await reader.get('/v2/tokens?container=pci%20high'))).toEqual(['container']);
    expect(fieldsOf(await reader.get('/v2/tokens?container=/a/&container=/b/'))).toEqual(['container']);
    expect(fieldsOf(await reader.get('/v2/tokens?metadata=%7Bnot-json'))).toEqual(['metadata']);
  });

  it('takes at most 100 metadata filters on GET /v2/tokens and GET /tokens, in either form, and names metadata beyond', async () => {
    await createMany(2, () => ({ type: 'token', data: 'x', metadata: { k0: 'v' } }));
    const pairs = (n: number): Array<[string, string]> => Array.from({ length: n }, (_, i) => [`k${i.toString(36)}`, 'v']);
    const dotted = (n: number): string => pairs(n).map(([k, v]) => `metadata.${k}=${v}`).join('&');
    const json = (n: number): string => `metadata=${encodeURIComponent(JSON.stringify(Object.fromEntries(pairs(n))))}`;
    for (const path of ['/v2/tokens', '/tokens']) {
      await reader.get(`${path}?${dotted(100)}`).expect(200);
      await reader.get(`${path}?${json(100)}`).expect(200);
      // Each filter is one more condition of the store's query: a thousand used to be a 500 on SQLite (expression depth).
      for (const query of [dotted(101), json(101), `${json(60)}&${dotted(101).split('&').slice(60).join('&')}`, dotted(1000)]) {
        expect([path, query.length, fieldsOf(await reader.get(`${path}?${query}`))]).toEqual([path, query.length, ['metadata']]);
      }
    }
  });

  it('binds a cursor to its query: another filter or query is a 400 on start, another size is not', async () => {
    await createMany(12, (i) => ({ type: i % 2 ? 'token' : 'card_number', data: i % 2 ? 'x' : '4242424242424242', metadata: { a: '1', b: '2' } }));
    const listed = (await reader.get('/v2/tokens?type=token&metadata.a=1&metadata.b=2&size=2').expect(200)).body as CursorAnswer;
    const cursor = listed.pagination.next!;
    expect(fieldsOf(await reader.get(`/v2/tokens?type=card_number&metadata.a=1&metadata.b=2&start=${cursor}`))).toEqual(['start']);
    expect(fieldsOf(await reader.get(`/v2/tokens?type=token&start=${cursor}`))).toEqual(['start']);
    expect(fieldsOf(await reader.post('/v2/tokens/search').send({ query: 'type:token', start: cursor }))).toEqual(['start']);
    // The same filters in another order, and another page size, carry on where the first page ended.
    const next = (await reader.get(`/v2/tokens?metadata.b=2&metadata.a=1&type=token&size=3&start=${cursor}`).expect(200)).body as CursorAnswer;
    expect(next.pagination.page_size).toBe(3);
    const rest = (await reader.get('/v2/tokens?type=token&size=100').expect(200)).body.data as Listed[];
    expect(next.data.map((t) => t.id)).toEqual(rest.slice(2, 5).map((t) => t.id));

    const searched = (await reader.post('/v2/tokens/search').send({ query: 'type:token', size: 2 }).expect(200)).body as CursorAnswer;
    const searchCursor = searched.pagination.next!;
    expect(fieldsOf(await reader.post('/v2/tokens/search').send({ query: 'type:card_number', start: searchCursor }))).toEqual(['start']);
    expect(fieldsOf(await reader.post('/v2/tokens/search').send({ start: searchCursor }))).toEqual(['start']);
    expect(fieldsOf(await reader.get(`/v2/tokens?type=token&start=${searchCursor}`))).toEqual(['start']);
    await reader.post('/v2/tokens/search').send({ query: 'type:token', start: searchCursor, size: 5 }).expect(200);
  });

  it('refuses a garbled or altered cursor as a 400 on start, and changes nothing', async () => {
    await createMany(6);
    const cursor = ((await reader.get('/v2/tokens?size=2').expect(200)).body as CursorAnswer).pagination.next!;
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    for (const bad of [flipped, `${cursor}A`, cursor.slice(0, -1), 'garbage', '', '%00', 'x'.repeat(5000)]) {
      expect([bad.slice(0, 12), fieldsOf(await reader.get(`/v2/tokens?start=${encodeURIComponent(bad)}`))]).toEqual([bad.slice(0, 12), ['start']]);
      expect(fieldsOf(await reader.post('/v2/tokens/search').send({ start: bad }))).toEqual(['start']);
    }
    expect(fieldsOf(await reader.post('/v2/tokens/search').send({ start: 42 }))).toEqual(['start']);
    expect(fieldsOf(await reader.get(`/v2/tokens?start=${cursor}&start=${cursor}`))).toEqual(['start']);
    expect((await reader.get('/v2/tokens').expect(200)).body.data).toHaveLength(6);
  });

  it("refuses another tenant's cursor, and never shows another tenant's tokens", async () => {
    const mine = await createMany(5);
    const other = await h.createTenant('Other');
    const theirs = as(h.app, await applicationKey({ ...h, key: other.management.key }, { name: 'o', type: 'private', permissions: ['token:create', 'token:read', 'token:search'] }));
    for (let i = 0; i < 5; i++) await theirs.post('/tokens').send({ type: 'token', data: 'theirs' }).expect(201);
    const theirCursor = ((await theirs.get('/v2/tokens?size=2').expect(200)).body as CursorAnswer).pagination.next!;
    const theirSearch = ((await theirs.post('/v2/tokens/search').send({ size: 2 }).expect(200)).body as CursorAnswer).pagination.next!;
    expect(fieldsOf(await reader.get(`/v2/tokens?size=2&start=${theirCursor}`))).toEqual(['start']);
    expect(fieldsOf(await reader.post('/v2/tokens/search').send({ size: 2, start: theirSearch }))).toEqual(['start']);
    expect((await walk(reader, listPage, {}, 2)).sort()).toEqual([...mine].sort());
    expect((await walk(reader, searchPage, {}, 3)).sort()).toEqual([...mine].sort());
  });

  it.each(ENDPOINTS)('%s takes a size of 1 to 100 (20 by default), and names size otherwise', async (_name, page, params) => {
    await createMany(3);
    for (const size of [0, 101, -1, 1.5, 'ten', 1e12]) {
      const res = await page(reader, { ...params, size });
      expect([size, fieldsOf(res)]).toEqual([size, ['size']]);
    }
    expect((await page(reader, { ...params, size: 100 }).expect(200)).body.pagination).toEqual({ page_size: 100 });
    expect((await page(reader, { ...params, size: 1 }).expect(200)).body.data).toHaveLength(1);
    expect(fieldsOf(await page(reader, { ...params, size: 0, start: 'bad' })).sort()).toEqual(['size', 'start']);
  });

  it('needs token:read for GET /v2/tokens and token:search for POST /v2/tokens/search, and a key for either', async () => {
    await createMany(2);
    const searchOnly = as(h.app, await privateKey(h, 'token:search'));
    const readOnly = as(h.app, await privateKey(h, 'token:read'));
    await searchOnly.get('/v2/tokens').expect(403);
    await searchOnly.get('/v2/tokens?size=0').expect(403);
    await readOnly.post('/v2/tokens/search').send({}).expect(403);
    await readOnly.post('/v2/tokens/search').send({ size: 'x' }).expect(403);
    await as(h.app, h.key).get('/v2/tokens').expect(403);
    await request(h.app).get('/v2/tokens').expect(401);
    await request(h.app).post('/v2/tokens/search').send({}).expect(401);
    await as(h.app, 'key_nope').get('/v2/tokens').expect(401);
    await readOnly.get('/v2/tokens').expect(200);
    await searchOnly.post('/v2/tokens/search').send({}).expect(200);
    expect(fieldsOf(await searchOnly.post('/v2/tokens/search').send({ query: '(type:token' }))).toEqual(['query']);
    expect(fieldsOf(await searchOnly.post('/v2/tokens/search').send({ page: 2 }))).toEqual(['page']);
  });

  it('shows each token as GET /tokens/{id} shows it to the same caller: revealed, masked, or only within its rules', async () => {
    h.clock.advance(1);
    const pci = (await writer.post('/tokens').send({ type: 'card_number', data: '4242424242424242', containers: ['/pci/'] }).expect(201)).body.id;
    h.clock.advance(1);
    const ssn = (await writer.post('/tokens').send({ type: 'social_security_number', data: '123-45-6789' }).expect(201)).body.id;
    const masker = as(h.app, await privateKey(h, 'token:read', 'token:search'));
    const ruled = as(
      h.app,
      await applicationKey(h, { name: 'r', type: 'private', rules: [{ description: 'PCI', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read', 'token:search'] }] }),
    );
    for (const api of [reader, masker, ruled]) {
      const listed = ((await api.get('/v2/tokens').expect(200)).body as CursorAnswer).data;
      const searched = ((await api.post('/v2/tokens/search').send({}).expect(200)).body as CursorAnswer).data;
      expect(searched).toEqual(listed);
      for (const token of listed) expect(token).toEqual((await api.get(`/tokens/${token.id}`).expect(200)).body);
    }
    const data = async (api: Api): Promise<unknown[]> => ((await api.get('/v2/tokens').expect(200)).body as CursorAnswer).data.map((t) => t.data);
    expect(await data(reader)).toEqual(['123-45-6789', '4242424242424242']);
    expect(await data(masker)).toEqual(['XXX-XX-6789', 'XXXXXXXXXXXX4242']);
    expect(((await ruled.get('/v2/tokens').expect(200)).body as CursorAnswer).data.map((t) => [t.id, t.data])).toEqual([[pci, '4242424242424242']]);
    expect(ssn).toBeDefined();
  });

  it('pages every token exactly once, whatever the sizes and however many share a millisecond (seeded property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{3,6}$/), { maxLength: 14 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 14, maxLength: 14 }),
        fc.integer({ min: 1, max: 5 }),
        fc.boolean(),
        async (names, instants, size, viaSearch) => {
          run += 1;
          const made: Array<{ id: string; at: number }> = [];
          for (const [i, name] of names.entries()) {
            const at = start + 10_000 + instants[i]!;
            h.clock.set(new Date(at));
            const id = `r${run}-${name}`;
            await writer.post('/tokens').send({ id, type: 'token', data: name, metadata: { run: String(run) } }).expect(201);
            made.push({ id, at });
          }
          const expected = made.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((t) => t.id);
          const seen = viaSearch
            ? await walk(reader, searchPage, { query: `metadata.run:${run}` }, size)
            : await walk(reader, listPage, { [`metadata.run`]: String(run) }, size);
          expect(seen).toEqual(expected);
        },
      ),
      { seed: 20261124, numRuns: 25 },
    );
  });

  it('never shows a token twice nor skips one that stays, while tokens are created, deleted, updated and expire between pages (seeded property)', async () => {
    const updater = as(h.app, await privateKey(h, 'token:create', 'token:delete', 'token:update', 'token:read'));
    const op = fc.record({ kind: fc.constantFrom('create', 'delete', 'update', 'tick'), at: fc.integer({ min: 0, max: 5 }), pick: fc.nat() });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ at: fc.integer({ min: 0, max: 3 }), ttl: fc.option(fc.integer({ min: 1, max: 6 })) }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.array(op, { maxLength: 3 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (initial, between, size, viaSearch) => {
          run += 1;
          const origin = start + 100_000 + run * 1_000;
          let now = origin + 10;
          // Each token's expiry; the ones created or deleted during the walk are promised nothing.
          const expiries = new Map<string, number | undefined>();
          const promisedNothing = new Set<string>();
          for (const [i, token] of initial.entries()) {
            h.clock.set(new Date(origin + token.at));
            const expires = token.ttl === null ? undefined : now + token.ttl;
            const body = { id: `w${run}-${i}`, type: 'token', data: 'x', metadata: { run: String(run) }, ...(expires ? { expires_at: new Date(expires).toISOString() } : {}) };
            expiries.set((await updater.post('/tokens').send(body).expect(201)).body.id as string, expires);
          }
          h.clock.set(new Date(now));
          const alive = (): string[] => [...expiries].filter(([, at]) => at === undefined || at > now).map(([id]) => id);
          let page = 0;
          const seen = await walk(reader, viaSearch ? searchPage : listPage, viaSearch ? { query: `metadata.run:${run}` } : { 'metadata.run': String(run) }, size, async () => {
            for (const change of between[page++] ?? []) {
              const ids = alive();
              const target = ids[change.pick % Math.max(ids.length, 1)];
              if (change.kind === 'create') {
                h.clock.set(new Date(origin + change.at));
                const id = `w${run}-new${page}-${change.pick}`;
                if ((await updater.post('/tokens').send({ id, type: 'token', data: 'x', metadata: { run: String(run) } })).status === 201) {
                  expiries.set(id, undefined);
                  promisedNothing.add(id);
                }
                h.clock.set(new Date(now));
              } else if (change.kind === 'delete' && target) {
                await updater.delete(`/tokens/${target}`).expect(204);
                expiries.delete(target);
                promisedNothing.add(target);
              } else if (change.kind === 'update' && target) {
                await updater.patch(`/tokens/${target}`).set('Content-Type', 'application/merge-patch+json').send({ metadata: { run: String(run), n: String(change.pick) } }).expect(200);
              } else if (change.kind === 'tick') {
                now += 1;
                h.clock.set(new Date(now));
              }
            }
          });
          expect([...counts(seen)].filter(([, n]) => n > 1)).toEqual([]);
          // Every token that was there from the first page to the last, and still is, was seen.
          expect(alive().filter((id) => !promisedNothing.has(id) && !seen.includes(id))).toEqual([]);
        },
      ),
      { seed: 20261123, numRuns: 40 },
    );
  });

  it("pages through the Basis Theory SDK's own pagers (listV2, searchV2)", async () => {
    const ids = await createMany(23, (i) => ({ type: 'token', data: `v${i}`, metadata: { batch: i % 2 ? 'odd' : 'even' } }));
    const server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const key = await privateKey(h, 'token:read', 'token:search');
      const client = new BasisTheoryClient({ apiKey: key, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const listed: string[] = [];
      for await (const token of await client.tokens.listV2({ size: 4 })) listed.push(token.id!);
      expect(listed.sort()).toEqual([...ids].sort());
      const odd: string[] = [];
      for await (const token of await client.tokens.listV2({ metadata: { batch: 'odd' }, size: 3 })) odd.push(token.id!);
      expect(odd.sort()).toEqual(ids.filter((_, i) => i % 2).sort());
      const searched: string[] = [];
      for await (const token of await client.tokens.searchV2({ query: 'metadata.batch:even', size: 5 })) searched.push(token.id!);
      expect(searched.sort()).toEqual(ids.filter((_, i) => i % 2 === 0).sort());
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
