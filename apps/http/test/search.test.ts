import { applicationKey, as, harness, type Harness, privateKey } from './harness';

describe('token search over HTTP', () => {
  let h: Harness;
  let writer: ReturnType<typeof as>;
  let searcher: ReturnType<typeof as>;
  const ids: Record<string, string> = {};

  const make = async (name: string, body: object): Promise<void> => {
    h.clock.advanceMinutes(1);
    ids[name] = (await writer.post('/tokens').send(body).expect(201)).body.id;
  };
  const search = (query: string | undefined, extra: object = {}) =>
    searcher.post('/tokens/search').send({ ...(query === undefined ? {} : { query }), ...extra });
  const found = async (query: string): Promise<string[]> => {
    const res = await search(query).expect(200);
    return res.body.data.map((t: { id: string }) => Object.entries(ids).find(([, id]) => id === t.id)?.[0] ?? t.id);
  };

  beforeEach(async () => {
    h = await harness();
    writer = as(h.app, await privateKey(h, 'token:create', 'token:update'));
    searcher = as(h.app, await privateKey(h, 'token:search', 'token:read', 'token:use'));
    await make('ssn1', { type: 'social_security_number', data: '123-45-6789', metadata: { Customer: 'Ada Lovelace' } });
    await make('ssn2', { type: 'social_security_number', data: '987-65-6789', metadata: { customer: 'grace' } });
    await make('ein', { type: 'employer_id_number', data: '12-3456789' });
    await make('card', { type: 'card_number', data: '4242424242424242', metadata: { customer: 'ada lovelace', plan: 'gold' } });
    await make('email', { type: 'token', data: { email: 'Ada@Example.com' }, search_indexes: ['{{ data.email }}'], containers: ['/pii/low/'] });
  });

  it('finds an SSN by each of its default indexes, case-insensitively for token indexes', async () => {
    expect(await found('data:123-45-6789')).toEqual(['ssn1']);
    // The EIN 12-3456789 has the same digits once its dash is removed.
    expect(await found('data:123456789')).toEqual(['ein', 'ssn1']);
    expect(await found('data:6789')).toEqual(['ein', 'ssn2', 'ssn1']);
    expect(await found('data:"ada@example.com"')).toEqual(['email']);
    expect(await found('data:ADA@EXAMPLE.COM')).toEqual(['email']);
    expect(await found('data:ada')).toEqual([]);
  });

  it('combines fields, containers and ranges, with the envelope and totals', async () => {
    const res = await search('container:/pii/* AND NOT type:employer_id_number', { size: 2 }).expect(200);
    expect(res.body.pagination).toEqual({ total_items: 3, page_number: 1, page_size: 2, total_pages: 2 });
    expect(res.body.data).toHaveLength(2);
    expect(await found('container:/pii/high/ AND created_at:[2026-01-01T00:02:00Z TO *]')).toEqual(['ein', 'ssn2']);
    expect(await found('metadata.customer:"ADA LOVELACE"')).toEqual(['card', 'ssn1']);
    expect(await found('(type:card_number OR type:token) -container:/pii/*')).toEqual(['card']);
    expect(await found('fingerprint:' + (await searcher.get(`/tokens/${ids.card}`).expect(200)).body.fingerprint)).toEqual(['card']);
  });

  it('finds metadata keys with spaces when the space is escaped', async () => {
    await writer.post('/tokens').send({ type: 'token', data: 'x', metadata: { 'Full Name': 'John Smith' } }).expect(201);
    const res = await search('metadata.full\\ name:"john smith"').expect(200);
    expect(res.body.pagination.total_items).toBe(1);
  });

  it('returns data per the caller\'s transform', async () => {
    const res = await search('data:123-45-6789').expect(200);
    expect(res.body.data[0].data).toBe('123-45-6789');
    const masker = as(h.app, await privateKey(h, 'token:search'));
    const masked = await masker.post('/tokens/search').send({ query: 'data:123-45-6789' }).expect(200);
    expect(masked.body.data[0].data).toBe('XXX-XX-6789');
  });

  it('follows updates of the indexed data', async () => {
    await writer.patch(`/tokens/${ids.ssn1}`).set('Content-Type', 'application/merge-patch+json').send({ data: '111-22-3333' }).expect(200);
    expect(await found('data:123-45-6789')).toEqual([]);
    expect(await found('data:3333')).toEqual(['ssn1']);
  });

  it('treats a missing or empty query as every token', async () => {
    expect((await search(undefined).expect(200)).body.pagination.total_items).toBe(5);
    expect((await search('').expect(200)).body.pagination.total_items).toBe(5);
  });

  it.each([
    ['an unknown field', 'colour:red'],
    ['a misplaced wildcard', 'container:/pc*/high/'],
    ['a bad date', 'created_at:[2026-13-01 TO *]'],
    ['unbalanced parentheses', '(type:token'],
    ['a range on a term field', 'type:[a TO b]'],
    ['a query over 2000 characters', `type:${'x'.repeat(2001)}`],
  ])('rejects %s with a 400 that says where', async (_case, query) => {
    const res = await search(query).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['query']);
    if (query.length <= 2000) expect(res.body.detail).toMatch(/position \d+/);
  });

  it.each([
    [{ size: 101 }, 'size'],
    [{ size: 0 }, 'size'],
    [{ page: 0 }, 'page'],
    [{ page: 1.5 }, 'page'],
    [{ sort: 'id' }, 'sort'],
  ])('rejects paging %j with a 400', async (body, field) => {
    const res = await search(undefined, body).expect(400);
    expect(Object.keys(res.body.errors)).toContain(field);
  });

  it('needs token:search', async () => {
    const reader = as(h.app, await privateKey(h, 'token:read'));
    await reader.post('/tokens/search').send({ query: 'type:token' }).expect(403);
  });

  it('leaves out tokens the caller\'s rules do not let it search, and counts only the rest', async () => {
    const key = await applicationKey(h, {
      name: 'pii searcher',
      type: 'private',
      rules: [
        { priority: 1, container: '/pii/high/', transform: 'mask', permissions: ['token:search'] },
        { priority: 2, container: '/pci/', transform: 'reveal', permissions: ['token:read'] },
      ],
    });
    const api = as(h.app, key);
    const res = await api.post('/tokens/search').send({ query: 'data:6789' }).expect(200);
    expect(res.body.pagination.total_items).toBe(3);
    expect(res.body.data.map((t: { data: string }) => t.data)).toEqual(['XX-XXX6789', 'XXX-XX-6789', 'XXX-XX-6789']);
    const all = await api.post('/tokens/search').send({}).expect(200);
    expect(all.body.pagination.total_items).toBe(3);
    expect(all.body.data.map((t: { containers: string[] }) => t.containers[0])).toEqual(['/pii/high/', '/pii/high/', '/pii/high/']);
  });

  it('never shows or counts another tenant\'s tokens', async () => {
    const other = await h.createTenant('Other');
    const theirs = as(h.app, await applicationKey({ ...h, key: other.management.key }, { name: 'o', type: 'private', permissions: ['token:create', 'token:search', 'token:read'] }));
    await theirs.post('/tokens').send({ type: 'social_security_number', data: '123-45-6789' }).expect(201);
    expect(await found('data:123-45-6789')).toEqual(['ssn1']);
    const their = await theirs.post('/tokens/search').send({ query: 'data:6789' }).expect(200);
    expect(their.body.pagination.total_items).toBe(1);
  });

  describe('GET /tokens', () => {
    const list = (qs: string) => searcher.get(`/tokens${qs}`);
    const names = (body: { data: Array<{ id: string }> }): string[] =>
      body.data.map((t) => Object.entries(ids).find(([, id]) => id === t.id)![0]);

    it('lists every token newest first with the envelope', async () => {
      const res = await list('?size=2&page=2').expect(200);
      expect(res.body.pagination).toEqual({ total_items: 5, page_number: 2, page_size: 2, total_pages: 3 });
      expect(names(res.body)).toEqual(['ein', 'ssn2']);
    });

    it('filters by repeated ids and types, and metadata ANDed case-insensitively', async () => {
      expect(names((await list(`?id=${ids.ssn1}&id=${ids.card}`).expect(200)).body)).toEqual(['card', 'ssn1']);
      expect(names((await list('?type=social_security_number&type=employer_id_number').expect(200)).body)).toEqual(['ein', 'ssn2', 'ssn1']);
      expect(names((await list('?metadata.customer=ADA%20LOVELACE').expect(200)).body)).toEqual(['card', 'ssn1']);
      expect(names((await list('?metadata.customer=ada%20lovelace&metadata.plan=Gold').expect(200)).body)).toEqual(['card']);
      expect(names((await list('?metadata.customer=ada%20lovelace&metadata.customer=grace').expect(200)).body)).toEqual(['card', 'ssn1']);
      expect(names((await list('?type=card_number&metadata.customer=grace').expect(200)).body)).toEqual([]);
    });

    it('rejects bad paging and unknown types', async () => {
      expect(Object.keys((await list('?size=101').expect(400)).body.errors)).toEqual(['size']);
      expect(Object.keys((await list('?type=passport').expect(400)).body.errors)).toEqual(['type']);
    });

    it('needs token:read and applies read rules', async () => {
      const searchOnly = as(h.app, await privateKey(h, 'token:search'));
      await searchOnly.get('/tokens').expect(403);
      const pci = as(h.app, await applicationKey(h, { name: 'pci', type: 'private', rules: [{ priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] }] }));
      const res = await pci.get('/tokens').expect(200);
      expect(res.body.pagination.total_items).toBe(1);
      expect(res.body.data[0].data).toBe('4242424242424242');
    });
  });
});
