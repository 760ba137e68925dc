import request from 'supertest';
import { applicationKey, as, harness, type Harness, privateKey } from './harness';

/** Endpoints of Basis Theory's current Node SDK (5.x) that svc serves: the SDK's first call is tenants.self.get(). */
describe('GET /tenants/self', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await harness();
  });

  it("answers the caller's tenant in Basis Theory's shape", async () => {
    const res = await as(h.app, h.key).get('/tenants/self').expect(200);
    expect(res.body).toEqual({
      id: h.tenant.tenant.id,
      name: 'Acme',
      owner_id: h.tenant.owner.user.id,
      type: 'PRODUCTION',
      settings: {},
      created_by: h.tenant.owner.user.id,
      created_at: '2026-01-01T00:00:00.000Z',
      modified_by: h.tenant.owner.user.id,
      modified_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('needs tenant:read, which only management applications may hold', async () => {
    const withoutRead = await applicationKey(h, { name: 'm', type: 'management', permissions: ['application:read'] });
    await as(h.app, withoutRead).get('/tenants/self').expect(403);
    await as(h.app, await privateKey(h, 'token:read')).get('/tenants/self').expect(403);
    await request(h.app).get('/tenants/self').expect(401);
    const refused = await as(h.app, h.key).post('/applications').send({ name: 'p', type: 'private', permissions: ['tenant:read'] }).expect(400);
    expect(Object.keys(refused.body.errors)).toEqual(['permissions[0]']);
  });

  it("shows each tenant only itself", async () => {
    const other = await h.createTenant('Other');
    expect((await as(h.app, other.management.key).get('/tenants/self').expect(200)).body.name).toBe('Other');
  });
});

describe('GET /permissions', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await harness();
  });

  it('lists every permission with what it allows and the application types that may hold it, for any key', async () => {
    const res = await as(h.app, await privateKey(h, 'token:read')).get('/permissions').expect(200);
    const types = (res.body as Array<{ type: string }>).map((p) => p.type);
    expect(types).toEqual(expect.arrayContaining(['token:create', 'token:use', 'session:authorize', 'tenant:read', 'application:delete']));
    for (const entry of res.body as Array<{ description: string; application_types: string[] }>) {
      expect(entry.description.length).toBeGreaterThan(0);
      expect(entry.application_types.length).toBeGreaterThan(0);
    }
    expect(res.body.find((p: { type: string }) => p.type === 'token:create')).toEqual({
      type: 'token:create',
      description: 'Create tokens.',
      application_types: ['private', 'public'],
    });
  });

  it('filters by application type, and every listed permission is accepted on an application of that type', async () => {
    const pub = await as(h.app, h.key).get('/permissions?application_type=public').expect(200);
    expect(pub.body.map((p: { type: string }) => p.type).sort()).toEqual(['session:create', 'token:create', 'token:intent:create', 'token:update']);
    for (const type of ['private', 'public', 'management']) {
      const permissions = (await as(h.app, h.key).get(`/permissions?application_type=${type}`).expect(200)).body.map((p: { type: string }) => p.type);
      await as(h.app, h.key).post('/applications').send({ name: type, type, permissions }).expect(201);
    }
  });

  it('refuses an unknown application type, naming the parameter, and answers 401 without a key', async () => {
    const res = await as(h.app, h.key).get('/permissions?application_type=root').expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['application_type']);
    const unknown = await as(h.app, h.key).get('/permissions?container=/&status=x').expect(400);
    expect(Object.keys(unknown.body.errors).sort()).toEqual(['container', 'status']);
    await request(h.app).get('/permissions').expect(401);
  });
});
