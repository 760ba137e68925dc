import { readFileSync, existsSync } from 'node:fs';
import { BasisTheoryClient } from '@basis-theory/node-sdk';
import { WEBHOOK_EVENT_TYPES } from '@svc/core';
import request from 'supertest';
import { applicationKey, as, harness, type Harness, listening, resolving } from './harness';

const HOOK = { name: 'Orders', url: 'https://hooks.example.com/svc', events: ['token.created', 'application.deleted'] };
const NONE = '00000000-0000-4000-8000-000000000000';

const problemFields = (res: request.Response): string[] => Object.keys((res.body as { errors?: object }).errors ?? {});

describe('webhooks over HTTP', () => {
  let h: Harness;
  let api: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    api = as(h.app, h.key);
  });

  const create = (body: object) => api.post('/webhooks').send(body);

  describe('create, read, list, update, delete', () => {
    it('creates a webhook enabled by default and shows its signing secret once', async () => {
      const res = await create({ ...HOOK, notify_email: 'Ops@Example.com' }).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        tenant_id: h.tenant.tenant.id,
        status: 'enabled',
        name: 'Orders',
        url: HOOK.url,
        notify_email: 'Ops@Example.com',
        events: HOOK.events,
        secret: expect.stringMatching(/^whsec_[1-9A-HJ-NP-Za-km-z]{40,}$/),
        created_by: h.tenant.management.application.id,
        created_at: '2026-01-01T00:00:00.000Z',
      });
      const got = await api.get(`/webhooks/${res.body.id}`).expect(200);
      const { secret, ...shown } = res.body as Record<string, unknown>;
      expect(got.body).toEqual(shown);
      expect(got.text).not.toContain(secret as string);
      const listed = await api.get('/webhooks').expect(200);
      expect(listed.text).not.toContain(secret as string);
      expect(listed.body).toEqual({ pagination: { total_items: 1, page_number: 1, page_size: 50, total_pages: 1 }, data: [shown] });
      expect(h.logLines.join('\n')).not.toContain(secret as string);
    });

    it('gives each webhook its own secret, and creates one disabled when asked', async () => {
      const a = await create(HOOK).expect(201);
      const b = await create({ ...HOOK, status: 'disabled', notify_email: null }).expect(201);
      expect(a.body.secret).not.toBe(b.body.secret);
      expect(b.body.status).toBe('disabled');
      expect(b.body).not.toHaveProperty('notify_email');
    });

    it('lists newest first, in pages', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await create({ ...HOOK, name: `hook ${i}` }).expect(201)).body.id as string);
        h.clock.advance(1000);
      }
      const page = await api.get('/webhooks?page=2&size=2').expect(200);
      expect(page.body.pagination).toEqual({ total_items: 3, page_number: 2, page_size: 2, total_pages: 2 });
      expect(page.body.data.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
      expect(problemFields(await api.get('/webhooks?size=101').expect(400))).toEqual(['size']);
    });

    it('replaces the fields on PUT, keeps the status unless given, and never shows the secret', async () => {
      const made = (await create({ ...HOOK, status: 'disabled', notify_email: 'ops@example.com' }).expect(201)).body;
      h.clock.advance(60_000);
      const put = await api.put(`/webhooks/${made.id}`).send({ name: 'Renamed', url: 'https://other.example.com/in', events: ['token.deleted'] }).expect(200);
      expect(put.body).toMatchObject({
        id: made.id,
        name: 'Renamed',
        url: 'https://other.example.com/in',
        events: ['token.deleted'],
        status: 'disabled',
        created_at: made.created_at,
        modified_by: h.tenant.management.application.id,
        modified_at: '2026-01-01T00:01:00.000Z',
      });
      expect(put.body).not.toHaveProperty('notify_email');
      expect(put.body).not.toHaveProperty('secret');
      const enabled = await api.put(`/webhooks/${made.id}`).send({ ...HOOK, status: 'enabled' }).expect(200);
      expect(enabled.body.status).toBe('enabled');
      expect((await api.get(`/webhooks/${made.id}`).expect(200)).body).toEqual(enabled.body);
    });

    it('never writes a PUT over a change made between its read and its write: a failing delivery\'s disabling stays', async () => {
      const made = (await create(HOOK).expect(201)).body;
      const hooks = h.store.webhooks;
      const findById = hooks.findById.bind(hooks);
      let reads = 0;
      // Right after the PUT's first read, svc disables the webhook (as a delivery failing for a day does).
      hooks.findById = async (tenantId, id) => {
        const found = await findById(tenantId, id);
        if (++reads === 1 && found) {
          h.clock.advance(1);
          await hooks.update({ ...found, status: 'disabled', modifiedBy: 'svc', modifiedAt: h.clock.now() }, undefined, found);
        }
        return found;
      };
      try {
        const put = await api.put(`/webhooks/${made.id}`).send({ ...HOOK, name: 'Renamed' }).expect(200);
        expect([put.body.name, put.body.status]).toEqual(['Renamed', 'disabled']);
        expect(reads).toBe(2);
      } finally {
        hooks.findById = findById;
      }
      expect((await api.get(`/webhooks/${made.id}`).expect(200)).body).toMatchObject({ name: 'Renamed', status: 'disabled' });
    });

    it('deletes with 204; the webhook is gone after', async () => {
      const id = (await create(HOOK).expect(201)).body.id as string;
      await api.delete(`/webhooks/${id}`).expect(204);
      await api.get(`/webhooks/${id}`).expect(404);
      await api.delete(`/webhooks/${id}`).expect(404);
      expect((await api.get('/webhooks').expect(200)).body.data).toEqual([]);
    });

    it('answers an unknown or malformed id with 404 problem+json', async () => {
      for (const id of [NONE, 'nope', '%E2%80%A8']) {
        const res = await api.get(`/webhooks/${id}`).expect(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        await api.put(`/webhooks/${id}`).send(HOOK).expect(404);
        await api.delete(`/webhooks/${id}`).expect(404);
      }
    });

    it('lists the event types of beyond.md §6 as a plain array', async () => {
      const res = await api.get('/webhooks/event-types').expect(200);
      expect(res.body).toEqual([...WEBHOOK_EVENT_TYPES]);
      expect(res.body).toHaveLength(16);
      expect(res.body).toContain('application.key.created');
    });
  });

  describe('validation', () => {
    it.each([
      [{ ...HOOK, name: '' }, ['name']],
      [{ ...HOOK, name: 'x'.repeat(201) }, ['name']],
      [{ ...HOOK, url: `https://hooks.example.com/${'a'.repeat(2000)}` }, ['url']],
      [{ ...HOOK, url: 'not a url' }, ['url']],
      [{ ...HOOK, events: [] }, ['events']],
      [{ ...HOOK, events: ['token.created', 'token.exploded'] }, ['events[1]']],
      [{ ...HOOK, events: ['token.created', 'token.created'] }, ['events[1]']],
      [{ ...HOOK, events: 'token.created' }, ['events']],
      [{ ...HOOK, status: 'paused' }, ['status']],
      [{ ...HOOK, notify_email: 'not-an-email' }, ['notify_email']],
      [{ ...HOOK, secret: 'whsec_mine' }, ['secret']],
      [{ name: 'x', events: ['token.created'] }, ['url']],
      [{ ...HOOK, name: '', url: 'ftp://x.example.com', events: [], notify_email: '@' }, ['events', 'name', 'notify_email', 'url']],
    ])('refuses %j naming %j, creating nothing', async (body, fields) => {
      const res = await create(body).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(problemFields(res).sort()).toEqual(fields);
      expect((await api.get('/webhooks').expect(200)).body.pagination.total_items).toBe(0);
    });

    it('refuses a bad body on PUT too, changing nothing', async () => {
      const made = (await create(HOOK).expect(201)).body;
      const res = await api.put(`/webhooks/${made.id}`).send({ ...HOOK, name: 'changed', events: ['nope'] }).expect(400);
      expect(problemFields(res)).toEqual(['events[0]']);
      expect((await api.get(`/webhooks/${made.id}`).expect(200)).body.name).toBe('Orders');
    });

    it('refuses more than 50 webhooks per tenant with a 400 naming the limit', async () => {
      for (let i = 0; i < 50; i++) await create({ ...HOOK, name: `hook ${i}` }).expect(201);
      const res = await create(HOOK).expect(400);
      expect(res.body.errors).toEqual({ webhooks: ['A tenant may have at most 50 webhooks.'] });
      const other = await h.createTenant('Other');
      await as(h.app, other.management.key).post('/webhooks').send(HOOK).expect(201);
      const listed = await api.get('/webhooks').expect(200);
      expect(listed.body.data).toHaveLength(50);
    });
  });

  describe('the outbound policy', () => {
    it.each([
      'http://hooks.example.com/in',
      'https://127.0.0.1:9999/in',
      'https://10.0.0.5/in',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/in',
      'https://user:pass@hooks.example.com/in',
      'file:///etc/passwd',
      'https://localhost/',
      'https://a.b.localhost:8443/in',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://example.com:0/',
      'https://192.0.2.10/in',
      'https://[2001:db8::1]/in',
    ])('refuses %s with a 400 naming url, at create and at update', async (url) => {
      const res = await create({ ...HOOK, url }).expect(400);
      expect(problemFields(res)).toEqual(['url']);
      expect(JSON.stringify(res.body)).not.toContain('pass');
      const id = (await create(HOOK).expect(201)).body.id as string;
      expect(problemFields(await api.put(`/webhooks/${id}`).send({ ...HOOK, url }).expect(400))).toEqual(['url']);
      expect((await api.get(`/webhooks/${id}`).expect(200)).body.url).toBe(HOOK.url);
    });

    describe('a host name, looked up at create and update', () => {
      /** The app with a resolver that knows only these names. */
      const appResolving = async (names: Record<string, string[]>, env: Record<string, string> = {}) => {
        const resolved = await harness(env, undefined, resolving(names));
        return as(resolved.app, resolved.key);
      };
      const NAMES = { vm: ['127.0.0.1'], 'db.corp.example': ['10.0.0.5'], 'split.example.com': ['93.184.216.34', 'fd00::1'], 'hooks.example.com': ['93.184.216.34'] };

      it.each(['https://vm/', 'https://db.corp.example:8443/in', 'https://split.example.com/in'])(
        'refuses %s, which resolves to an address the policy refuses, at create and at update (400 naming url, nothing changed)',
        async (url) => {
          const a = await appResolving(NAMES);
          const res = await a.post('/webhooks').send({ ...HOOK, url }).expect(400);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(problemFields(res)).toEqual(['url']);
          expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|10\.0\.0\.5|fd00/);
          const id = (await a.post('/webhooks').send(HOOK).expect(201)).body.id as string;
          expect(problemFields(await a.put(`/webhooks/${id}`).send({ ...HOOK, url }).expect(400))).toEqual(['url']);
          expect((await a.get(`/webhooks/${id}`).expect(200)).body.url).toBe(HOOK.url);
          expect((await a.get('/webhooks').expect(200)).body.pagination.total_items).toBe(1);
        },
      );

      it('takes a name that does not resolve (yet), and a name SVC_OUTBOUND_ALLOW lists whatever it resolves to', async () => {
        await (await appResolving(NAMES)).post('/webhooks').send({ ...HOOK, url: 'https://not-yet.example.com/in' }).expect(201);
        await (await appResolving(NAMES, { SVC_OUTBOUND_ALLOW: 'vm' })).post('/webhooks').send({ ...HOOK, url: 'https://vm/in' }).expect(201);
      });
    });

    it('takes a private or plain-http destination that SVC_OUTBOUND_ALLOW lists, and only that one', async () => {
      const allowed = await harness({ SVC_OUTBOUND_ALLOW: '127.0.0.1:9999' });
      const a = as(allowed.app, allowed.key);
      await a.post('/webhooks').send({ ...HOOK, url: 'http://127.0.0.1:9999/hook' }).expect(201);
      await a.post('/webhooks').send({ ...HOOK, url: 'https://127.0.0.1:9999/hook' }).expect(201);
      expect(problemFields(await a.post('/webhooks').send({ ...HOOK, url: 'https://127.0.0.1:9998/hook' }).expect(400))).toEqual(['url']);
      expect(problemFields(await a.post('/webhooks').send({ ...HOOK, url: 'http://hooks.example.com/' }).expect(400))).toEqual(['url']);
      expect(problemFields(await a.post('/webhooks').send({ ...HOOK, url: 'https://u:p@127.0.0.1:9999/' }).expect(400))).toEqual(['url']);
    });
  });

  describe('concurrent updates, each slow to check', () => {
    it('refuses no PUT for losing its compare-and-set a few times: the slow ones read again until they win', async () => {
      // Each attempt looks the url's name up (0 to 7 ms here, as DNS varies); five rounds let the slowest lose (409).
      let lookups = 0;
      const slow = await harness({}, undefined, {
        resolve: () => new Promise((resolve) => setTimeout(() => resolve({ kind: 'unresolved' }), (lookups++ * 5) % 8)),
      });
      const a = as(slow.app, slow.key);
      const id = (await a.post('/webhooks').send(HOOK).expect(201)).body.id as string;
      const names = Array.from({ length: 8 }, (_, i) => `Orders ${i}`);
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(names.map((name) => a.put(`/webhooks/${id}`).send({ ...HOOK, name })));
        expect(results.map((r) => r.status)).toEqual(names.map(() => 200));
      }
      expect(names).toContain((await a.get(`/webhooks/${id}`).expect(200)).body.name);
    });
  });

  describe('permissions and tenants', () => {
    it('needs a key: 401 without one', async () => {
      const made = (await create(HOOK).expect(201)).body;
      await request(h.app).post('/webhooks').send(HOOK).expect(401);
      await request(h.app).get('/webhooks').expect(401);
      await request(h.app).get('/webhooks/event-types').expect(401);
      await request(h.app).get(`/webhooks/${made.id}`).expect(401);
      await request(h.app).put(`/webhooks/${made.id}`).send(HOOK).expect(401);
      await request(h.app).delete(`/webhooks/${made.id}`).expect(401);
      await as(h.app, 'key_prod_nope').get('/webhooks').expect(401);
    });

    it('needs the webhook permission of each operation: 403 with another, changing nothing', async () => {
      const made = (await create(HOOK).expect(201)).body;
      const reader = as(h.app, await applicationKey(h, { name: 'reader', type: 'management', permissions: ['webhook:read'] }));
      await reader.get('/webhooks').expect(200);
      await reader.get('/webhooks/event-types').expect(200);
      await reader.get(`/webhooks/${made.id}`).expect(200);
      await reader.post('/webhooks').send(HOOK).expect(403);
      await reader.put(`/webhooks/${made.id}`).send({ ...HOOK, name: 'x' }).expect(403);
      await reader.delete(`/webhooks/${made.id}`).expect(403);
      const other = as(h.app, await applicationKey(h, { name: 'apps', type: 'management', permissions: ['application:read'] }));
      for (const res of [await other.get('/webhooks'), await other.get('/webhooks/event-types'), await other.get(`/webhooks/${made.id}`)]) {
        expect(res.status).toBe(403);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      const pvt = as(h.app, await applicationKey(h, { name: 'pvt', type: 'private', permissions: ['token:read'] }));
      await pvt.get('/webhooks').expect(403);
      await pvt.post('/webhooks').send(HOOK).expect(403);
      expect((await api.get(`/webhooks/${made.id}`).expect(200)).body.name).toBe('Orders');
      expect((await api.get('/webhooks').expect(200)).body.data).toHaveLength(1);
    });

    it('refuses webhook permissions on a private or public application', async () => {
      const res = await api.post('/applications').send({ name: 'x', type: 'private', permissions: ['webhook:read'] }).expect(400);
      expect(problemFields(res)).toEqual(['permissions[0]']);
    });

    it("answers another tenant's webhook exactly as an unknown one", async () => {
      const made = (await create(HOOK).expect(201)).body;
      const other = as(h.app, (await h.createTenant('Other')).management.key);
      const foreign = await other.get(`/webhooks/${made.id}`).expect(404);
      const unknown = await other.get(`/webhooks/${NONE}`).expect(404);
      expect({ ...foreign.body, instance: undefined }).toEqual({ ...unknown.body, instance: undefined });
      expect(foreign.headers['content-type']).toBe(unknown.headers['content-type']);
      await other.put(`/webhooks/${made.id}`).send({ ...HOOK, name: 'stolen' }).expect(404);
      await other.delete(`/webhooks/${made.id}`).expect(404);
      expect((await other.get('/webhooks').expect(200)).body.data).toEqual([]);
      expect((await api.get(`/webhooks/${made.id}`).expect(200)).body.name).toBe('Orders');
    });
  });

  // Only the SQLite project has a file to scan; the memory project does not register the case (rather than skip it).
  (process.env.SVC_TEST_STORE === 'sqlite' ? describe : () => undefined)('at rest', () => {
    it('keeps the signing secret sealed: it is nowhere in the SQLite file or its WAL', async () => {
      const secret = (await create(HOOK).expect(201)).body.secret as string;
      const file = (h.store as unknown as { db: { name: string } }).db.name;
      const stored = await h.store.webhooks.list(h.tenant.tenant.id, { page: 1, size: 10 });
      expect(stored.items[0]!.sealedSecret.length).toBeGreaterThan(secret.length);
      for (const path of [file, `${file}-wal`]) {
        if (!existsSync(path)) continue;
        const bytes = readFileSync(path);
        expect(bytes.includes(Buffer.from(secret))).toBe(false);
        expect(bytes.includes(Buffer.from(secret.slice('whsec_'.length)))).toBe(false);
      }
      expect(readFileSync(file).length + (existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`).length : 0)).toBeGreaterThan(0);
    });
  });
});

describe('@basis-theory/node-sdk 5.x webhooks against svc', () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listening>>;
  let baseUrl: string;

  beforeEach(async () => {
    h = await harness();
    server = await listening(h.app);
    baseUrl = server.url;
  });

  afterEach(() => server.close());

  it('create, get, list, update, delete and events.list, unchanged', async () => {
    const bt = new BasisTheoryClient({ apiKey: h.key, baseUrl, maxRetries: 0 });
    const created = await bt.webhooks.create({ name: 'SDK hook', url: 'https://hooks.example.com/sdk', events: ['token.created'], notifyEmail: 'ops@example.com' });
    expect(created).toMatchObject({
      name: 'SDK hook',
      url: 'https://hooks.example.com/sdk',
      events: ['token.created'],
      status: 'enabled',
      notifyEmail: 'ops@example.com',
      tenantId: h.tenant.tenant.id,
      createdBy: h.tenant.management.application.id,
    });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect((created as unknown as { secret: string }).secret).toMatch(/^whsec_/);
    const got = await bt.webhooks.get(created.id);
    expect(got).toMatchObject({ id: created.id, name: 'SDK hook' });
    expect(got).not.toHaveProperty('secret');
    const list = await bt.webhooks.list();
    expect(list.data.map((w) => w.id)).toEqual([created.id]);
    expect(list.pagination.pageSize).toBe(50);
    const updated = await bt.webhooks.update(created.id, { name: 'Renamed', url: 'https://hooks.example.com/v2', events: ['token.created', 'token.deleted'] });
    expect(updated).toMatchObject({ name: 'Renamed', events: ['token.created', 'token.deleted'], status: 'enabled' });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    expect(await bt.webhooks.events.list()).toEqual([...WEBHOOK_EVENT_TYPES]);
    await bt.webhooks.delete(created.id);
    await expect(bt.webhooks.get(created.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(bt.webhooks.create({ name: 'bad', url: 'http://hooks.example.com/', events: ['token.created'] })).rejects.toMatchObject({ statusCode: 400 });
  });
});
