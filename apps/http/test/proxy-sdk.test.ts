import { BasisTheoryClient } from '@basis-theory/node-sdk';
import { as, harness, type Harness, listening } from './harness';

/** Basis Theory's node SDK (5.x) manages pre-configured proxies here unchanged, its own transform spelling included. */
describe("pre-configured proxies through Basis Theory's node SDK", () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listening>>;

  beforeEach(async () => {
    h = await harness();
    server = await listening(h.app);
  });

  afterEach(() => server.close());

  it('create, get, list, update, patch and delete', async () => {
    const inbound = await as(h.app, h.key).post('/applications').send({ name: 'inbound', type: 'private', permissions: ['token:create'] }).expect(201);
    const bt = new BasisTheoryClient({ apiKey: h.key, baseUrl: server.url, maxRetries: 0 });
    const created = await bt.proxies.create({
      name: 'SDK proxy',
      destinationUrl: 'https://processor.example.com/charges',
      requestTransforms: [
        { type: 'tokenize', matcher: '$.card.number', options: { token: { type: 'card_number' } } },
        { type: 'append_header', options: { location: 'Authorization', value: 'Bearer {{ configuration.KEY }}' } },
      ],
      responseTransforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{16}', replacement: '****' }],
      application: { id: inbound.body.id as string },
      configuration: { KEY: 'sk_sdk' },
      requireAuth: false,
    });
    expect(created).toMatchObject({
      name: 'SDK proxy',
      destinationUrl: 'https://processor.example.com/charges',
      applicationId: inbound.body.id,
      configuration: { KEY: 'sk_sdk' },
      requireAuth: false,
      tenantId: h.tenant.tenant.id,
      requestTransforms: [
        { type: 'tokenize', matcher: '$.card.number' },
        { type: 'append_header' },
      ],
      responseTransforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{16}', replacement: '****' }],
    });
    expect(created.key).toMatch(/^key_prx_/);
    expect(created.createdAt).toBeInstanceOf(Date);
    const got = await bt.proxies.get(created.id!);
    expect(got).toMatchObject({ id: created.id, name: 'SDK proxy' });
    expect(got.key).toBeUndefined();
    const page = await bt.proxies.list();
    expect(page.data.map((p) => p.id)).toEqual([created.id]);
    const updated = await bt.proxies.update(created.id!, { name: 'Renamed', destinationUrl: 'https://processor.example.com/v2', requireAuth: true });
    expect(updated).toMatchObject({ name: 'Renamed', destinationUrl: 'https://processor.example.com/v2', requireAuth: true, requestTransforms: [] });
    await bt.proxies.patch(created.id!, { name: 'Patched' });
    expect(await bt.proxies.get(created.id!)).toMatchObject({ name: 'Patched', destinationUrl: 'https://processor.example.com/v2' });
    await bt.proxies.delete(created.id!);
    await expect(bt.proxies.get(created.id!)).rejects.toMatchObject({ statusCode: 404 });
    await expect(bt.proxies.create({ name: 'bad', destinationUrl: 'http://processor.example.com/' })).rejects.toMatchObject({ statusCode: 400 });
  });
});
