import request from 'supertest';
import { as, harness, type Harness } from './harness';

describe('authentication and authorization', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await harness();
  });

  it.each([
    ['no key', undefined],
    ['an empty key', ''],
    ['an unknown key', 'key_mgt_unknownunknownunknownunknownunknown'],
  ])('answers %s with 401 problem+json', async (_case, key) => {
    const req = request(h.app).get('/applications');
    const res = await (key === undefined ? req : req.set('SVC-API-KEY', key)).expect(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 401, title: 'Unauthenticated', type: 'https://svc.dev/errors/unauthenticated' });
  });

  it('answers the key of a deleted application with 401', async () => {
    const created = (
      await as(h.app, h.key).post('/applications').send({ name: 'x', type: 'management', permissions: ['application:read'] }).expect(201)
    ).body;
    await as(h.app, h.key).delete(`/applications/${created.id}`).expect(204);
    await as(h.app, created.key).get('/applications').expect(401);
  });

  it('answers a missing permission with 403 before looking at the body', async () => {
    const reader = (
      await as(h.app, h.key).post('/applications').send({ name: 'r', type: 'management', permissions: ['application:read'] }).expect(201)
    ).body;
    const api = as(h.app, reader.key);
    await api.get('/applications').expect(200);
    const res = await api.post('/applications').send({ nonsense: true }).expect(403);
    expect(res.body).toMatchObject({ status: 403, type: 'https://svc.dev/errors/forbidden' });
    await api.put(`/applications/${reader.id}`).send({ name: 'x', permissions: ['application:read'] }).expect(403);
    await api.post(`/applications/${reader.id}/regenerate`).expect(403);
    await api.delete(`/applications/${reader.id}`).expect(403);
  });

  it('answers a private key on application endpoints with 403', async () => {
    const backend = (
      await as(h.app, h.key).post('/applications').send({ name: 'b', type: 'private', permissions: ['token:read'] }).expect(201)
    ).body;
    await as(h.app, backend.key).get('/applications/key').expect(403);
  });

  describe('across tenants', () => {
    let foreignId: string;
    let foreignKey: string;

    beforeEach(async () => {
      const other = await h.createTenant('Other');
      foreignKey = other.management.key;
      foreignId = (
        await as(h.app, foreignKey).post('/applications').send({ name: 'theirs', type: 'private', permissions: ['token:read'] }).expect(201)
      ).body.id;
    });

    it('answers another tenant\'s application as absent for get, update, regenerate and delete', async () => {
      const api = as(h.app, h.key);
      const get = await api.get(`/applications/${foreignId}`).expect(404);
      await api.put(`/applications/${foreignId}`).send({ name: 'mine now', permissions: ['token:read'] }).expect(404);
      await api.post(`/applications/${foreignId}/regenerate`).expect(404);
      await api.delete(`/applications/${foreignId}`).expect(404);
      const absent = await api.get('/applications/00000000-0000-4000-8000-00000000ffff').expect(404);
      expect(get.body.detail).toBe(absent.body.detail);
      const theirs = await as(h.app, foreignKey).get(`/applications/${foreignId}`).expect(200);
      expect(theirs.body.name).toBe('theirs');
    });

    it('leaves another tenant\'s applications out of lists, even by id', async () => {
      const api = as(h.app, h.key);
      const all = await api.get('/applications').expect(200);
      expect(all.body.data.map((a: { id: string }) => a.id)).not.toContain(foreignId);
      const byId = await api.get(`/applications?id=${foreignId}`).expect(200);
      expect(byId.body).toEqual({ pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 }, data: [] });
    });
  });
});

describe('the HTTP edge', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await harness();
  });

  it('echoes a correlation id, or makes one', async () => {
    const given = await as(h.app, h.key).get('/applications/key').set('SVC-TRACE-ID', 'abc-123').expect(200);
    expect(given.headers['svc-trace-id']).toBe('abc-123');
    const bt = await as(h.app, h.key).get('/applications/key').set('BT-TRACE-ID', 'bt-9').expect(200);
    expect(bt.headers['svc-trace-id']).toBe('bt-9');
    // Response headers are SVC-* only (beyond.md): the BT-* alias is read, never answered.
    expect(bt.headers['bt-trace-id']).toBeUndefined();
    const made = await as(h.app, h.key).get('/applications/key').expect(200);
    expect(made.headers['svc-trace-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never adopts a correlation id that looks like a key: the audit log and the logs keep trace ids', async () => {
    for (const [header, value] of [
      ['SVC-TRACE-ID', h.key],
      ['SVC-TRACE-ID', 'key_pvt_5Jm2Xq'],
      ['BT-TRACE-ID', 'x.whsec_abc'],
    ] as const) {
      const res = await as(h.app, h.key).get('/applications/key').set(header, value).expect(200);
      expect(res.headers['svc-trace-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    await h.settleAudit();
    const logs = await as(h.app, h.key).get('/logs?size=100').expect(200);
    expect(logs.text).not.toMatch(/key_(pvt|mgt)_|whsec_/);
  });

  it('answers an unknown route with a 404 problem', async () => {
    const res = await request(h.app).get('/nowhere').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('never logs keys or bodies', async () => {
    const created = await as(h.app, h.key)
      .post('/applications')
      .send({ name: 'secret-name-123', type: 'management', permissions: ['application:read'] })
      .expect(201);
    await as(h.app, h.key).get('/applications/key').expect(200);
    const log = h.logLines.join('');
    expect(log).toContain('"route":"/applications/key"');
    expect(log).not.toContain(h.key);
    expect(log).not.toContain(created.body.key);
    expect(log).not.toContain('secret-name-123');
  });

  it('marks responses as not cacheable', async () => {
    const res = await as(h.app, h.key).get('/applications/key').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('CORS for browser clients', () => {
  it('answers a preflight before authentication and marks responses readable by any origin', async () => {
    const h = await harness();
    const pre = await request(h.app)
      .options('/tokens')
      .set('Origin', 'https://shop.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'svc-api-key, content-type')
      .expect(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-headers']).toContain('SVC-API-KEY');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const res = await request(h.app).get('/applications/key').set('Origin', 'https://shop.example.com').set('SVC-API-KEY', h.key).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('narrows to SVC_CORS_ORIGINS', async () => {
    const h = await harness({ SVC_CORS_ORIGINS: 'https://shop.example.com' });
    const ok = await request(h.app).options('/tokens').set('Origin', 'https://shop.example.com').set('Access-Control-Request-Method', 'POST').expect(204);
    expect(ok.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    const other = await request(h.app).options('/tokens').set('Origin', 'https://evil.example.com').set('Access-Control-Request-Method', 'POST').expect(204);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
