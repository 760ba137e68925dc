import type { AddressInfo } from 'node:net';
import { BasisTheory, BasisTheoryClient } from '@basis-theory/node-sdk';
import request from 'supertest';
import { as, harness, type Harness } from './harness';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('application keys over HTTP', () => {
  let h: Harness;
  let api: ReturnType<typeof as>;
  /** The management application of the harness tenant: the creator of everything made with `h.key`. */
  let creator: string;

  beforeEach(async () => {
    h = await harness();
    api = as(h.app, h.key);
    creator = h.tenant.management.application.id;
  });

  /** A management application that may read applications: `GET /applications/key` tells whether a key works. */
  async function reader(): Promise<{ id: string; key: string }> {
    const res = await api.post('/applications').send({ name: 'reader', type: 'management', permissions: ['application:read'] }).expect(201);
    return { id: res.body.id as string, key: res.body.key as string };
  }

  /** The status `key` gets on `GET /applications/key`: 200 while it works, 401 once revoked. */
  async function works(key: string): Promise<number> {
    return (await as(h.app, key).get('/applications/key')).status;
  }

  const addKey = async (appId: string): Promise<{ id: string; key: string }> => {
    const res = await api.post(`/applications/${appId}/keys`).expect(201);
    return { id: res.body.id as string, key: res.body.key as string };
  };

  describe('create', () => {
    it("adds a key beside the first, shown once in Basis Theory's shape; both authenticate as the application", async () => {
      const app = await reader();
      h.clock.advanceMinutes(5);
      const res = await api.post(`/applications/${app.id}/keys`).expect(201);
      expect(res.body).toEqual({ id: expect.stringMatching(UUID), key: expect.stringMatching(/^key_mgt_[1-9A-HJ-NP-Za-km-z]{32,}$/), version: '1', created_by: creator, created_at: '2026-01-01T00:05:00.000Z' });
      for (const key of [app.key, res.body.key as string]) {
        const me = await as(h.app, key).get('/applications/key').expect(200);
        expect(me.body.id).toBe(app.id);
        expect(me.body.key).toBeUndefined();
      }
    });

    it("makes an application without a key for Basis Theory's create_key: false, and with one for true or nothing", async () => {
      const keyless = await api.post('/applications').send({ name: 'later', type: 'private', permissions: ['token:read'], create_key: false }).expect(201);
      expect(keyless.body.key).toBeUndefined();
      expect((await api.get(`/applications/${keyless.body.id}/keys`).expect(200)).body).toEqual([]);
      const added = await api.post(`/applications/${keyless.body.id}/keys`).expect(201);
      await as(h.app, added.body.key).get('/tokens').expect(200);
      for (const create_key of [true, undefined, null]) {
        const made = await api.post('/applications').send({ name: 'now', type: 'private', permissions: ['token:read'], create_key }).expect(201);
        expect([create_key, made.body.key]).toEqual([create_key, expect.stringMatching(/^key_pvt_/)]);
      }
      const refused = await api.post('/applications').send({ name: 'x', type: 'private', permissions: ['token:read'], create_key: 'no' }).expect(400);
      expect(Object.keys(refused.body.errors)).toEqual(['create_key']);
    });

    it.each([
      ['private', ['token:read'], 'key_pvt_'],
      ['public', ['token:create'], 'key_pub_'],
    ])('gives a %s application keys of its kind', async (type, permissions, prefix) => {
      const created = await api.post('/applications').send({ name: type, type, permissions }).expect(201);
      const res = await api.post(`/applications/${created.body.id}/keys`).send({}).expect(201);
      expect(res.body.key.startsWith(prefix)).toBe(true);
    });

    it('takes no body: an unknown field is a 400 naming it, and no key is made', async () => {
      const app = await reader();
      const res = await api.post(`/applications/${app.id}/keys`).send({ name: 'x' }).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Object.keys(res.body.errors)).toEqual(['name']);
      expect((await api.get(`/applications/${app.id}/keys`).expect(200)).body).toHaveLength(1);
    });

    it('refuses a key over the limit of 10 with a 400 naming the limit, adding nothing; revoking one makes room', async () => {
      const app = await reader();
      const added = [];
      for (let i = 0; i < 9; i++) added.push(await addKey(app.id));
      const refused = await api.post(`/applications/${app.id}/keys`).expect(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.errors).toEqual({ keys: [expect.stringContaining('at most 10 keys')] });
      expect((await api.get(`/applications/${app.id}/keys`).expect(200)).body).toHaveLength(10);
      await api.delete(`/applications/${app.id}/keys/${added[0]!.id}`).expect(204);
      expect(await works((await addKey(app.id)).key)).toBe(200);
    });

    it('never passes the limit when many creates race', async () => {
      const app = await reader();
      const answers = await Promise.all(Array.from({ length: 15 }, () => api.post(`/applications/${app.id}/keys`)));
      expect(answers.filter((res) => res.status === 201)).toHaveLength(9);
      expect(answers.filter((res) => res.status === 400)).toHaveLength(6);
      const listed = (await api.get(`/applications/${app.id}/keys`).expect(200)).body as Array<{ id: string }>;
      expect(listed.map((k) => k.id).sort()).toEqual(
        expect.arrayContaining(answers.filter((res) => res.status === 201).map((res) => res.body.id as string)),
      );
      expect(listed).toHaveLength(10);
      for (const res of answers.filter((r) => r.status === 201)) expect(await works(res.body.key as string)).toBe(200);
    });
  });

  describe('list and get', () => {
    it('list every key newest first and read one, never with its value', async () => {
      const app = await reader();
      h.clock.advanceMinutes(1);
      const second = await addKey(app.id);
      const listed = await api.get(`/applications/${app.id}/keys`).expect(200);
      expect(listed.body).toEqual([
        { id: second.id, version: '1', created_by: creator, created_at: '2026-01-01T00:01:00.000Z' },
        { id: expect.stringMatching(UUID), version: '1', created_by: creator, created_at: '2026-01-01T00:00:00.000Z' },
      ]);
      const first = await api.get(`/applications/${app.id}/keys/${listed.body[1].id}`).expect(200);
      expect(first.body).toEqual(listed.body[1]);
      expect(JSON.stringify([listed.body, first.body])).not.toMatch(/key_mgt_|"key"/);
      // Filtered by key ids (the Basis Theory SDK's `id`, repeatable); any other parameter is a 400 naming it.
      expect((await api.get(`/applications/${app.id}/keys?id=${second.id.toUpperCase()}`).expect(200)).body).toEqual([listed.body[0]]);
      expect((await api.get(`/applications/${app.id}/keys?id=${second.id}&id=${listed.body[1].id}`).expect(200)).body).toEqual(listed.body);
      expect((await api.get(`/applications/${app.id}/keys?id=00000000-0000-4000-8000-00000000ffff`).expect(200)).body).toEqual([]);
      expect(Object.keys((await api.get(`/applications/${app.id}/keys?id=nope`).expect(400)).body.errors)).toEqual(['id[0]']);
      expect(Object.keys((await api.get(`/applications/${app.id}/keys?start=x`).expect(400)).body.errors)).toEqual(['start']);
    });

    it('shows the bootstrap key of the tenant as its management application\'s one key, made by no application', async () => {
      const listed = await api.get(`/applications/${creator}/keys`).expect(200);
      expect(listed.body).toEqual([{ id: expect.stringMatching(UUID), version: '1', created_at: '2026-01-01T00:00:00.000Z' }]);
    });
  });

  describe('revoke', () => {
    it('revokes one key at once, with 401 for it, while the other keeps working', async () => {
      const app = await reader();
      const second = await addKey(app.id);
      expect(await works(app.key)).toBe(200);
      const [original] = ((await api.get(`/applications/${app.id}/keys`).expect(200)).body as Array<{ id: string }>).filter((k) => k.id !== second.id);
      await api.delete(`/applications/${app.id}/keys/${original!.id}`).expect(204);
      const refused = await as(h.app, app.key).get('/applications/key').expect(401);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await works(second.key)).toBe(200);
      await api.get(`/applications/${app.id}/keys/${original!.id}`).expect(404);
      await api.delete(`/applications/${app.id}/keys/${original!.id}`).expect(404);
      expect((await api.get(`/applications/${app.id}/keys`).expect(200)).body.map((k: { id: string }) => k.id)).toEqual([second.id]);
    });

    it('rotates the bootstrap key without downtime: a new key first, then the old one revoked', async () => {
      const [bootstrap] = (await api.get(`/applications/${creator}/keys`).expect(200)).body as Array<{ id: string }>;
      const next = await addKey(creator);
      await as(h.app, next.key).delete(`/applications/${creator}/keys/${bootstrap!.id}`).expect(204);
      expect(await works(h.key)).toBe(401);
      expect(await works(next.key)).toBe(200);
      await as(h.app, next.key).post('/applications').send({ name: 'after', type: 'private', permissions: ['token:read'] }).expect(201);
    });

    it('may revoke the last key; the application stays, and a new key brings it back', async () => {
      const app = await reader();
      const [only] = (await api.get(`/applications/${app.id}/keys`).expect(200)).body as Array<{ id: string }>;
      await api.delete(`/applications/${app.id}/keys/${only!.id}`).expect(204);
      expect(await works(app.key)).toBe(401);
      expect((await api.get(`/applications/${app.id}/keys`).expect(200)).body).toEqual([]);
      await api.get(`/applications/${app.id}`).expect(200);
      expect(await works((await addKey(app.id)).key)).toBe(200);
    });

    it('keeps a public application\'s sessions working when one of its keys is revoked, and a revoked key creates none', async () => {
      const pub = await api.post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create', 'token:create'] }).expect(201);
      const second = await addKey(pub.body.id as string);
      const [original] = ((await api.get(`/applications/${pub.body.id}/keys`).expect(200)).body as Array<{ id: string }>).filter((k) => k.id !== second.id);
      const session = await as(h.app, second.key).post('/sessions').expect(201);
      await api.delete(`/applications/${pub.body.id}/keys/${original!.id}`).expect(204);
      await as(h.app, pub.body.key as string).post('/sessions').expect(401);
      // Still a session of a live application: known (not 401), only not authorized yet.
      await as(h.app, session.body.session_key as string).get('/applications/key').expect(403);
    });
  });

  describe('regenerate and delete', () => {
    it('regenerate replaces every key with one new key', async () => {
      const app = await reader();
      const extra = [await addKey(app.id), await addKey(app.id)];
      const regenerated = await api.post(`/applications/${app.id}/regenerate`).expect(200);
      for (const key of [app.key, ...extra.map((k) => k.key)]) expect(await works(key)).toBe(401);
      expect(await works(regenerated.body.key as string)).toBe(200);
      const listed = (await api.get(`/applications/${app.id}/keys`).expect(200)).body as Array<{ id: string; created_by: string }>;
      expect(listed).toHaveLength(1);
      expect(listed[0]!.created_by).toBe(creator);
      for (const key of extra) await api.get(`/applications/${app.id}/keys/${key.id}`).expect(404);
    });

    it('deleting an application deletes its keys', async () => {
      const app = await reader();
      const second = await addKey(app.id);
      await api.delete(`/applications/${app.id}`).expect(204);
      for (const key of [app.key, second.key]) expect(await works(key)).toBe(401);
      await api.get(`/applications/${app.id}/keys`).expect(404);
      await api.get(`/applications/${app.id}/keys/${second.id}`).expect(404);
    });

    it('answers an expired application as absent, its keys included', async () => {
      const created = await api.post('/applications').send({ name: 'brief', type: 'management', permissions: ['application:read'], expires_at: '2026-01-01T01:00:00.000Z' }).expect(201);
      const second = await addKey(created.body.id as string);
      h.clock.advanceHours(2);
      expect(await works(second.key)).toBe(401);
      await api.get(`/applications/${created.body.id}/keys`).expect(404);
      await api.post(`/applications/${created.body.id}/keys`).expect(404);
      await api.delete(`/applications/${created.body.id}/keys/${second.id}`).expect(404);
    });
  });

  describe('permissions', () => {
    it('needs application:update to create and revoke, application:read to list and read; 401 without a key', async () => {
      const app = await reader();
      const key = await addKey(app.id);
      const readOnly = await reader();
      const updateOnly = (await api.post('/applications').send({ name: 'u', type: 'management', permissions: ['application:update'] }).expect(201)).body.key as string;
      const privateKey = (await api.post('/applications').send({ name: 'p', type: 'private', permissions: ['token:read'] }).expect(201)).body.key as string;
      const paths = { list: `/applications/${app.id}/keys`, one: `/applications/${app.id}/keys/${key.id}` };

      await as(h.app, readOnly.key).get(paths.list).expect(200);
      await as(h.app, readOnly.key).get(paths.one).expect(200);
      await as(h.app, readOnly.key).post(paths.list).expect(403);
      await as(h.app, readOnly.key).delete(paths.one).expect(403);
      await as(h.app, updateOnly).get(paths.list).expect(403);
      await as(h.app, updateOnly).get(paths.one).expect(403);
      for (const res of [
        await as(h.app, privateKey).get(paths.list),
        await as(h.app, privateKey).get(paths.one),
        await as(h.app, privateKey).post(paths.list),
        await as(h.app, privateKey).delete(paths.one),
      ]) {
        expect(res.status).toBe(403);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      for (const res of [
        await request(h.app).get(paths.list),
        await request(h.app).get(paths.one),
        await request(h.app).post(paths.list),
        await request(h.app).delete(paths.one),
      ]) {
        expect(res.status).toBe(401);
      }
      // application:update alone may not key a management application holding application:read (it would gain it),
      // but may key a private one.
      await as(h.app, updateOnly).post(paths.list).expect(403);
      const backend = (await api.post('/applications').send({ name: 'b', type: 'private', permissions: ['token:read'] }).expect(201)).body.id as string;
      const made = (await as(h.app, updateOnly).post(`/applications/${backend}/keys`).expect(201)).body as { id: string; key: string };
      await as(h.app, updateOnly).delete(`/applications/${backend}/keys/${made.id}`).expect(204);
      expect(await works(key.key)).toBe(200);
      expect((await api.get(paths.list).expect(200)).body).toHaveLength(2);
    });
  });

  describe('tenants and ids', () => {
    it("answers another tenant's application and keys as absent, and changes nothing", async () => {
      const app = await reader();
      const key = await addKey(app.id);
      const other = await h.createTenant('Other');
      const theirs = as(h.app, other.management.key);
      const answers = [
        await theirs.get(`/applications/${app.id}/keys`),
        await theirs.get(`/applications/${app.id}/keys/${key.id}`),
        await theirs.post(`/applications/${app.id}/keys`),
        await theirs.delete(`/applications/${app.id}/keys/${key.id}`),
        // Our key id under their own application.
        await theirs.get(`/applications/${other.management.application.id}/keys/${key.id}`),
        await theirs.delete(`/applications/${other.management.application.id}/keys/${key.id}`),
      ];
      expect(answers.map((res) => res.status)).toEqual([404, 404, 404, 404, 404, 404]);
      expect(answers[0]!.body).toMatchObject({ status: 404, title: 'Not Found' });
      expect(await works(key.key)).toBe(200);
      expect((await api.get(`/applications/${app.id}/keys`).expect(200)).body).toHaveLength(2);
    });

    it('answers a key of another application of the same tenant as absent', async () => {
      const app = await reader();
      const sibling = await reader();
      const key = await addKey(app.id);
      await api.get(`/applications/${sibling.id}/keys/${key.id}`).expect(404);
      await api.delete(`/applications/${sibling.id}/keys/${key.id}`).expect(404);
      expect(await works(key.key)).toBe(200);
    });

    it('answers malformed and unknown ids with 404, reads upper-case UUIDs, and names an undecodable one in a 400', async () => {
      const app = await reader();
      const key = await addKey(app.id);
      const unknown = '00000000-0000-4000-8000-00000000ffff';
      await api.get(`/applications/nope/keys`).expect(404);
      await api.post(`/applications/nope/keys`).expect(404);
      await api.get(`/applications/${unknown}/keys`).expect(404);
      await api.get(`/applications/${app.id}/keys/nope`).expect(404);
      await api.delete(`/applications/${app.id}/keys/nope`).expect(404);
      await api.get(`/applications/${app.id}/keys/${unknown}`).expect(404);
      const notFound = await api.delete(`/applications/${app.id}/keys/${unknown}`).expect(404);
      expect(notFound.body.detail).toBe('The application key was not found.');
      expect((await api.get(`/applications/${app.id.toUpperCase()}/keys/${key.id.toUpperCase()}`).expect(200)).body.id).toBe(key.id);
      const undecodable = await api.get(`/applications/${app.id}/keys/%zz`).expect(400);
      expect(Object.keys(undecodable.body.errors)).toEqual(['key_id']);
      expect(Object.keys((await api.get('/applications/%zz/keys').expect(400)).body.errors)).toEqual(['id']);
    });

    it('answers a method the keys do not serve with 405', async () => {
      const app = await reader();
      await api.put(`/applications/${app.id}/keys`).expect(405);
      await api.post(`/applications/${app.id}/keys/${(await addKey(app.id)).id}`).expect(405);
    });
  });

  describe("Basis Theory's Node SDK", () => {
    it('creates, lists, reads and deletes keys through client.applicationKeys', async () => {
      const server = h.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const client = new BasisTheoryClient({ apiKey: h.key, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
        const app = await reader();
        const created = await client.applicationKeys.create(app.id);
        expect(created).toMatchObject({ id: expect.stringMatching(UUID), key: expect.stringMatching(/^key_mgt_/), version: '1', createdBy: creator });
        expect(await works(created.key!)).toBe(200);
        const listed = await client.applicationKeys.list(app.id);
        expect(listed.map((k) => k.id)).toContain(created.id);
        expect((await client.applicationKeys.list(app.id, { id: [created.id!] })).map((k) => k.id)).toEqual([created.id]);
        expect(listed.every((k) => k.key === undefined)).toBe(true);
        expect((await client.applicationKeys.get(app.id, created.id!)).id).toBe(created.id);
        await client.applicationKeys.delete(app.id, created.id!);
        await expect(client.applicationKeys.get(app.id, created.id!)).rejects.toBeInstanceOf(BasisTheory.NotFoundError);
        expect(await works(created.key!)).toBe(401);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
