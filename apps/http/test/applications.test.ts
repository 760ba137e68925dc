import request from 'supertest';
import { as, harness, type Harness } from './harness';

const privateApp = { name: 'Backend', type: 'private', permissions: ['token:read', 'token:create'] };

describe('applications over HTTP', () => {
  let h: Harness;
  let api: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    api = as(h.app, h.key);
  });

  const create = (body: object) => api.post('/applications').send(body);

  describe('create', () => {
    it('creates an application and shows its key once', async () => {
      const res = await create(privateApp).expect(201);
      expect(res.body).toMatchObject({
        name: 'Backend',
        type: 'private',
        tenant_id: h.tenant.tenant.id,
        permissions: ['token:read', 'token:create'],
        rules: [],
        created_by: h.tenant.management.application.id,
        created_at: '2026-01-01T00:00:00.000Z',
      });
      expect(res.body.key).toMatch(/^key_pvt_[1-9A-HJ-NP-Za-km-z]{32,}$/);
      const got = await api.get(`/applications/${res.body.id}`).expect(200);
      expect(got.body.key).toBeUndefined();
      expect(got.body.name).toBe('Backend');
      const listed = await api.get('/applications').expect(200);
      expect(listed.body.data.every((a: { key?: string }) => a.key === undefined)).toBe(true);
    });

    it.each([
      ['public', 'key_pub_'],
      ['management', 'key_mgt_'],
    ])('gives a %s application a key of its kind', async (type, prefix) => {
      const permissions = type === 'public' ? ['token:create'] : ['application:read'];
      const res = await create({ name: 'x', type, permissions }).expect(201);
      expect(res.body.key.startsWith(prefix)).toBe(true);
    });

    it('creates an application with container rules, normalizing the container', async () => {
      const res = await create({
        name: 'Rules',
        type: 'private',
        rules: [{ description: 'PCI', priority: 1, container: '/PCI/high', transform: 'reveal', permissions: ['token:read'] }],
      }).expect(201);
      expect(res.body.rules).toEqual([{ description: 'PCI', priority: 1, container: '/pci/high/', transform: 'reveal', permissions: ['token:read'] }]);
    });

    it('counts a name in characters, not UTF-16 units: 200 emoji are a name, 201 are not', async () => {
      const made = await create({ ...privateApp, name: '😀'.repeat(200) }).expect(201);
      expect(made.body.name).toBe('😀'.repeat(200));
      expect(Object.keys((await create({ ...privateApp, name: '😀'.repeat(201) }).expect(400)).body.errors)).toEqual(['name']);
    });

    it('uses the problem+json body for validation errors', async () => {
      const res = await create({ ...privateApp, name: 'x'.repeat(201) }).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({
        type: 'https://svc.dev/errors/validation',
        title: 'One or more validation errors occurred.',
        status: 400,
        instance: '/applications',
        errors: { name: [expect.stringContaining('200')] },
      });
    });

    it.each([
      ['a name over 200 characters', { ...privateApp, name: 'x'.repeat(201) }, 'name'],
      ['an empty expires_at', { ...privateApp, expires_at: '' }, 'expires_at'],
      ['a missing name', { type: 'private', permissions: ['token:read'] }, 'name'],
      ['an unknown type', { ...privateApp, type: 'admin' }, 'type'],
      ['empty permissions and rules', { name: 'x', type: 'private', permissions: [], rules: [] }, 'permissions'],
      ['an unknown permission', { ...privateApp, permissions: ['token:fly'] }, 'permissions[0]'],
      ['a permission not valid for the type', { name: 'x', type: 'public', permissions: ['token:read'] }, 'permissions[0]'],
      ['a management permission on a private application', { name: 'x', type: 'private', permissions: ['application:create'] }, 'permissions[0]'],
      ['a token permission on a management application', { name: 'x', type: 'management', permissions: ['token:read'] }, 'permissions[0]'],
      [
        'rules on a management application',
        { name: 'x', type: 'management', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['application:read'] }] },
        'rules',
      ],
      ['a rule without container', { name: 'x', type: 'private', rules: [{ priority: 1, transform: 'reveal', permissions: ['token:read'] }] }, 'rules[0].container'],
      [
        'a rule with conditions',
        {
          name: 'x',
          type: 'private',
          rules: [{ priority: 1, container: '/', conditions: [{ attribute: 'id', operator: 'equals', value: 'a' }], transform: 'reveal', permissions: ['token:read'] }],
        },
        'rules[0].conditions',
      ],
      [
        'duplicate priorities',
        {
          name: 'x',
          type: 'private',
          rules: [
            { priority: 1, container: '/a/', transform: 'reveal', permissions: ['token:read'] },
            { priority: 1, container: '/b/', transform: 'mask', permissions: ['token:read'] },
          ],
        },
        'rules[1].priority',
      ],
      ['a priority below 1', { name: 'x', type: 'private', rules: [{ priority: 0, container: '/', transform: 'reveal', permissions: ['token:read'] }] }, 'rules[0].priority'],
      ['an unknown transform', { name: 'x', type: 'private', rules: [{ priority: 1, container: '/', transform: 'show', permissions: ['token:read'] }] }, 'rules[0].transform'],
      ['a rule with no permissions', { name: 'x', type: 'private', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: [] }] }, 'rules[0].permissions'],
      // Rules decide token access only: a rule granting anything else was stored and granted nothing.
      ['a public rule granting session:create', { name: 'x', type: 'public', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['session:create'] }] }, 'rules[0].permissions[0]'],
      ['a private rule granting session:authorize', { name: 'x', type: 'private', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read', 'session:authorize'] }] }, 'rules[0].permissions[1]'],
      ['a rule granting proxy:invoke', { name: 'x', type: 'private', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['proxy:invoke'] }] }, 'rules[0].permissions[0]'],
      ['a rule granting token:intent:create', { name: 'x', type: 'public', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:intent:create'] }] }, 'rules[0].permissions[0]'],
      ['a bad container', { name: 'x', type: 'private', rules: [{ priority: 1, container: '/PCI high/', transform: 'reveal', permissions: ['token:read'] }] }, 'rules[0].container'],
      ['an unknown field', { ...privateApp, colour: 'blue' }, 'colour'],
      ['an unknown rule field', { name: 'x', type: 'private', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'], x: 1 }] }, 'rules[0].x'],
      ['permissions that are not an array', { ...privateApp, permissions: 'token:read' }, 'permissions'],
      ['a past expires_at', { ...privateApp, expires_at: '2025-01-01T00:00:00Z' }, 'expires_at'],
      ['a malformed expires_at', { ...privateApp, expires_at: 'tomorrow' }, 'expires_at'],
    ])('rejects %s with a 400 naming the field', async (_case, body, field) => {
      const res = await create(body).expect(400);
      expect(Object.keys(res.body.errors)).toContain(field);
      const list = await api.get('/applications').expect(200);
      expect(list.body.pagination.total_items).toBe(1);
    });

    it('rejects a body that is not JSON with 415 and malformed JSON with 400', async () => {
      await api.post('/applications').set('Content-Type', 'text/plain').send('hello').expect(415);
      const bad = await api.post('/applications').set('Content-Type', 'application/json').send('{"name":').expect(400);
      expect(bad.body.errors).toEqual({ body: ['Malformed JSON.'] });
    });

    it('rejects a missing body with 400', async () => {
      const res = await api.post('/applications').expect(400);
      expect(res.body.errors).toHaveProperty('body');
    });

    it('rejects a body over the limit with 413', async () => {
      const res = await create({ ...privateApp, name: 'x'.repeat(1024 * 1024 + 10) }).expect(413);
      expect(res.body.status).toBe(413);
    });

    it('accepts null for optional fields, as SDKs send them', async () => {
      const res = await create({ ...privateApp, rules: null, expires_at: null }).expect(201);
      expect(res.body.expires_at).toBeUndefined();
    });
  });

  describe('read', () => {
    it('returns the application of the presented key', async () => {
      const res = await api.get('/applications/key').expect(200);
      expect(res.body).toMatchObject({ id: h.tenant.management.application.id, type: 'management' });
      expect(res.body.key).toBeUndefined();
    });

    it('accepts the key in BT-API-KEY as well', async () => {
      const res = await request(h.app).get('/applications/key').set('BT-API-KEY', h.key).expect(200);
      expect(res.body.id).toBe(h.tenant.management.application.id);
    });

    it('pages the list newest first with the envelope, and filters by id and type', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        h.clock.advanceMinutes(1);
        ids.push((await create({ ...privateApp, name: `app ${i}` }).expect(201)).body.id);
      }
      const page = await api.get('/applications?page=2&size=2').expect(200);
      expect(page.body.pagination).toEqual({ total_items: 6, page_number: 2, page_size: 2, total_pages: 3 });
      expect(page.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
      const filtered = await api.get(`/applications?id=${ids[0]}&id=${ids[4]}`).expect(200);
      expect(filtered.body.data.map((a: { id: string }) => a.id)).toEqual([ids[4], ids[0]]);
      expect(filtered.body.pagination.total_items).toBe(2);
      const single = await api.get(`/applications?id=${ids[3]}`).expect(200);
      expect(single.body.data).toHaveLength(1);
      const byType = await api.get('/applications?type=management').expect(200);
      expect(byType.body.data.map((a: { id: string }) => a.id)).toEqual([h.tenant.management.application.id]);
      // Repeated, as the Basis Theory SDK sends a list of types: any of them.
      const byTypes = await api.get('/applications?type=management&type=public&size=100').expect(200);
      expect(byTypes.body.data.map((a: { type: string }) => a.type).sort()).toEqual(['management']);
      expect((await api.get('/applications?type=management&type=private&size=100').expect(200)).body.pagination.total_items).toBe(6);
    });

    it.each([
      ['page=0', 'page'],
      ['size=101', 'size'],
      ['size=abc', 'size'],
      ['id=not-a-uuid', 'id[0]'],
      ['type=robot', 'type'],
      ['type=private&type=robot', 'type[1]'],
    ])('rejects %s with a 400', async (query, field) => {
      const res = await api.get(`/applications?${query}`).expect(400);
      expect(Object.keys(res.body.errors)).toContain(field);
    });

    it('answers an unknown or malformed id with 404', async () => {
      await api.get('/applications/00000000-0000-4000-8000-00000000ffff').expect(404);
      await api.get('/applications/nope').expect(404);
    });
  });

  describe('no management key grants more than it holds', () => {
    it('refuses to create, change or key a management application holding a permission the caller lacks', async () => {
      const creator = (await create({ name: 'creator', type: 'management', permissions: ['application:create', 'application:read'] }).expect(201)).body;
      const c = as(h.app, creator.key);
      const raised = await c.post('/applications').send({ name: 'esc', type: 'management', permissions: ['application:create', 'log:read'] }).expect(403);
      expect(raised.headers['content-type']).toMatch(/application\/problem\+json/);
      // What it holds it may grant, and private applications (token permissions, which no management key holds) stay open to it.
      await c.post('/applications').send({ name: 'same', type: 'management', permissions: ['application:read'] }).expect(201);
      await c.post('/applications').send(privateApp).expect(201);

      const updater = (await create({ name: 'updater', type: 'management', permissions: ['application:update', 'application:read'] }).expect(201)).body;
      const u = as(h.app, updater.key);
      await u.put(`/applications/${updater.id}`).send({ name: 'updater', permissions: ['application:update', 'application:read', 'log:read'] }).expect(403);
      const bootstrap = h.tenant.management.application.id;
      await u.post(`/applications/${bootstrap}/keys`).expect(403);
      await u.post(`/applications/${bootstrap}/regenerate`).expect(403);
      await u.put(`/applications/${bootstrap}`).send({ name: 'mine now', permissions: ['application:read'] }).expect(403);
      // Nothing changed: the bootstrap key still works, and the updater still holds what it held.
      expect((await api.get(`/applications/${updater.id}`).expect(200)).body.permissions.sort()).toEqual(['application:read', 'application:update']);
      expect((await api.get(`/applications/${bootstrap}`).expect(200)).body.name).not.toBe('mine now');
      // Within what it holds it may work: rename itself, key a private application.
      await u.put(`/applications/${updater.id}`).send({ name: 'renamed', permissions: ['application:read'] }).expect(200);
    });
  });

  describe('update and regenerate', () => {
    it('replaces name, permissions and rules, keeping the type and key', async () => {
      const created = (await create(privateApp).expect(201)).body;
      h.clock.advanceMinutes(5);
      const res = await api
        .put(`/applications/${created.id}`)
        .send({ name: 'Renamed', rules: [{ priority: 1, container: '/pii/', transform: 'mask', permissions: ['token:read'] }] })
        .expect(200);
      expect(res.body).toMatchObject({
        name: 'Renamed',
        type: 'private',
        permissions: [],
        modified_by: h.tenant.management.application.id,
        modified_at: '2026-01-01T00:05:00.000Z',
      });
      expect(res.body.key).toBeUndefined();
      await as(h.app, created.key).get('/applications/key').expect(403);
    });

    it.each([
      ['the type', { name: 'x', type: 'public', permissions: ['token:read'] }, 'type'],
      ['empty permissions and rules', { name: 'x', permissions: [] }, 'permissions'],
      ['a permission not valid for the type', { name: 'x', permissions: ['application:read'] }, 'permissions[0]'],
      ['a missing name', { permissions: ['token:read'] }, 'name'],
    ])('rejects an update with %s', async (_case, body, field) => {
      const created = (await create(privateApp).expect(201)).body;
      const res = await api.put(`/applications/${created.id}`).send(body).expect(400);
      expect(Object.keys(res.body.errors)).toContain(field);
      expect((await api.get(`/applications/${created.id}`)).body.name).toBe('Backend');
    });

    it('regenerates the key: the new one works, the old one is refused at once', async () => {
      const created = (await create({ name: 'Mgmt', type: 'management', permissions: ['application:read'] }).expect(201)).body;
      await as(h.app, created.key).get('/applications/key').expect(200);
      const res = await api.post(`/applications/${created.id}/regenerate`).expect(200);
      expect(res.body.key).toMatch(/^key_mgt_/);
      expect(res.body.key).not.toBe(created.key);
      const old = await as(h.app, created.key).get('/applications/key').expect(401);
      expect(old.body.type).toBe('https://svc.dev/errors/unauthenticated');
      await as(h.app, res.body.key).get('/applications/key').expect(200);
    });
  });

  describe('delete', () => {
    it('deletes an application; its key stops working', async () => {
      const created = (await create({ name: 'Gone', type: 'management', permissions: ['application:read'] }).expect(201)).body;
      await api.delete(`/applications/${created.id}`).expect(204);
      await api.get(`/applications/${created.id}`).expect(404);
      await api.delete(`/applications/${created.id}`).expect(404);
      await as(h.app, created.key).get('/applications/key').expect(401);
    });
  });

  describe('expiry', () => {
    it('refuses the key of an expired application and hides it', async () => {
      const created = (
        await create({ name: 'Temp', type: 'management', permissions: ['application:read'], expires_at: '2026-01-01T01:00:00Z' }).expect(201)
      ).body;
      expect(created.expires_at).toBe('2026-01-01T01:00:00.000Z');
      await as(h.app, created.key).get('/applications/key').expect(200);
      h.clock.set('2026-01-01T01:00:00.000Z');
      await as(h.app, created.key).get('/applications/key').expect(401);
      await api.get(`/applications/${created.id}`).expect(404);
    });
  });
});
