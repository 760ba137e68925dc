import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodemailerMailer } from '@svc/mail';
import { simpleParser } from 'mailparser';
import request from 'supertest';
import { applicationKey, as, harness, type Harness } from './harness';

const ALL_TENANT = ['tenant:member:read', 'tenant:member:delete', 'tenant:invitation:create', 'tenant:invitation:read', 'tenant:invitation:update', 'tenant:invitation:delete'];

describe('members and invitations over HTTP', () => {
  let h: Harness;
  let api: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    api = as(h.app, h.key);
  });

  const invite = (email: string) => api.post('/tenants/self/invitations').send({ email });
  const accept = (token: string, names: object = {}) => request(h.app).post('/invitations/accept').send({ token, ...names });

  it('lists the OWNER made with the tenant, and refuses to delete it (422)', async () => {
    const res = await api.get('/tenants/self/members').expect(200);
    expect(res.body.pagination).toEqual({ total_items: 1, page_number: 1, page_size: 20, total_pages: 1 });
    expect(res.body.data[0]).toMatchObject({ role: 'OWNER', tenant_id: h.tenant.tenant.id, user: { email: 'owner@acme.test' } });
    const refused = await api.delete(`/tenants/self/members/${res.body.data[0].id}`).expect(422);
    expect(refused.body.type).toBe('https://svc.dev/errors/unprocessable');
  });

  it('invites, sends a link, accepts it once, and lists the new ADMIN member', async () => {
    const created = await invite('Grace@Example.com').expect(201);
    expect(created.body).toMatchObject({ email: 'grace@example.com', status: 'PENDING', tenant_id: h.tenant.tenant.id, expires_at: '2026-01-04T00:00:00.000Z' });
    expect(JSON.stringify(created.body)).not.toContain(h.mailer.lastToken());
    const mail = h.mailer.sent[0]!;
    expect(mail).toMatchObject({ to: 'grace@example.com', tenantName: 'Acme', inviterName: 'Acme management' });
    expect(mail.acceptUrl).toMatch(/^https:\/\/vault\.example\.com\/invitations\/accept\?token=/);

    const page = await request(h.app).get(`/invitations/accept?token=${encodeURIComponent(h.mailer.lastToken())}`).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('Acme');
    expect(page.text).toMatch(/<form method="post"/);

    const member = await accept(h.mailer.lastToken(), { first_name: 'Grace', last_name: 'Hopper' }).expect(201);
    expect(member.body).toMatchObject({ role: 'ADMIN', tenant_id: h.tenant.tenant.id, user: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' } });
    await accept(h.mailer.lastToken()).expect(410);
    await api.get(`/tenants/self/invitations/${created.body.id}`).expect(404);

    const members = await api.get(`/tenants/self/members?user_id=${member.body.user.id}`).expect(200);
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([member.body.id]);
    await invite('grace@example.com').expect(409);
    await api.delete(`/tenants/self/members/${member.body.id}`).expect(204);
    expect((await api.get('/tenants/self/members').expect(200)).body.pagination.total_items).toBe(1);
  });

  it('accepts from the HTML form too', async () => {
    await invite('ada@example.com').expect(201);
    const res = await request(h.app)
      .post('/invitations/accept')
      .type('form')
      .send({ token: h.mailer.lastToken(), first_name: 'Ada', last_name: '' })
      .expect(201);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('Acme');
    const again = await request(h.app).post('/invitations/accept').type('form').send({ token: h.mailer.lastToken() }).expect(410);
    expect(again.headers['content-type']).toMatch(/text\/html/);
  });

  it('refuses a second invitation of the same address (409)', async () => {
    await invite('ada@example.com').expect(201);
    const dup = await invite('ADA@example.com').expect(409);
    expect(dup.body.type).toBe('https://svc.dev/errors/conflict');
  });

  it.each(['not-an-email', 'a@', '@b.c', 'a b@c.d', 'a..b@c.d'])('rejects the address %j with a 400 on email', async (email) => {
    const res = await invite(email).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['email']);
  });

  it('resends with a new link and 72 more hours; the first link answers 410', async () => {
    const created = (await invite('ada@example.com').expect(201)).body;
    const first = h.mailer.lastToken();
    h.clock.advanceHours(10);
    const resent = await api.post(`/tenants/self/invitations/${created.id}/resend`).expect(200);
    expect(resent.body).toMatchObject({ status: 'PENDING', expires_at: '2026-01-04T10:00:00.000Z', modified_at: '2026-01-01T10:00:00.000Z' });
    expect(h.mailer.sent).toHaveLength(2);
    expect(h.mailer.lastToken()).not.toBe(first);
    await request(h.app).get(`/invitations/accept?token=${first}`).expect(410);
    await accept(first).expect(410);
    await accept(h.mailer.lastToken()).expect(201);
  });

  it('turns an invitation EXPIRED after 72 hours, filters by status, and refuses its link', async () => {
    const old = (await invite('old@example.com').expect(201)).body;
    const oldToken = h.mailer.lastToken();
    h.clock.advanceHours(72);
    const fresh = (await invite('new@example.com').expect(201)).body;
    expect((await api.get(`/tenants/self/invitations/${old.id}`).expect(200)).body.status).toBe('EXPIRED');
    const expired = await api.get('/tenants/self/invitations?status=EXPIRED').expect(200);
    expect(expired.body.data.map((i: { id: string }) => i.id)).toEqual([old.id]);
    const pending = await api.get('/tenants/self/invitations?status=PENDING').expect(200);
    expect(pending.body.data.map((i: { id: string }) => i.id)).toEqual([fresh.id]);
    expect((await api.get('/tenants/self/invitations?size=1&page=2').expect(200)).body.pagination).toEqual({ total_items: 2, page_number: 2, page_size: 1, total_pages: 2 });
    await accept(oldToken).expect(410);
    await api.post(`/tenants/self/invitations/${old.id}/resend`).expect(200);
    expect((await api.get(`/tenants/self/invitations/${old.id}`).expect(200)).body.status).toBe('PENDING');
  });

  it('deletes an invitation, and its link stops working', async () => {
    const created = (await invite('ada@example.com').expect(201)).body;
    await api.delete(`/tenants/self/invitations/${created.id}`).expect(204);
    await api.delete(`/tenants/self/invitations/${created.id}`).expect(404);
    await accept(h.mailer.lastToken()).expect(410);
  });

  it('leaves nothing behind when the mail cannot be sent, so the request can be retried', async () => {
    h.mailer.failNext = true;
    const res = await invite('ada@example.com').expect(503);
    expect(res.body.type).toBe('https://svc.dev/errors/unavailable');
    expect((await api.get('/tenants/self/invitations').expect(200)).body.pagination.total_items).toBe(0);
    await invite('ada@example.com').expect(201);
    const id = (await api.get('/tenants/self/invitations').expect(200)).body.data[0].id;
    const token = h.mailer.lastToken();
    h.mailer.failNext = true;
    await api.post(`/tenants/self/invitations/${id}/resend`).expect(503);
    await accept(token).expect(201);
  });

  it.each([
    ['page=0', 'page'],
    ['size=101', 'size'],
    ['status=LOST', 'status'],
  ])('rejects invitation list paging %s', async (qs, field) => {
    expect(Object.keys((await api.get(`/tenants/self/invitations?${qs}`).expect(400)).body.errors)).toEqual([field]);
  });

  it('caps member pages at 50 and checks user ids', async () => {
    expect(Object.keys((await api.get('/tenants/self/members?size=51').expect(400)).body.errors)).toEqual(['size']);
    await api.get('/tenants/self/members?size=50').expect(200);
    expect(Object.keys((await api.get('/tenants/self/members?user_id=x').expect(400)).body.errors)).toEqual(['user_id[0]']);
  });

  it('answers an accept without a token with 400, and a made-up one with 410', async () => {
    await request(h.app).post('/invitations/accept').send({}).expect(400);
    await accept('made-up').expect(410);
    await request(h.app).get('/invitations/accept').expect(400);
  });

  describe('permissions', () => {
    it.each([
      ['tenant:member:read', 'get', '/tenants/self/members'],
      ['tenant:invitation:read', 'get', '/tenants/self/invitations'],
      ['tenant:invitation:create', 'post', '/tenants/self/invitations'],
    ])('needs %s for %s %s', async (permission, method, url) => {
      const others = ALL_TENANT.filter((p) => p !== permission);
      const key = await applicationKey(h, { name: 'limited', type: 'management', permissions: others });
      const limited = as(h.app, key);
      await (method === 'get' ? limited.get(url) : limited.post(url).send({ email: 'x@example.com' })).expect(403);
    });

    it('needs delete permissions for deletes, and both create and update to resend', async () => {
      const created = (await invite('ada@example.com').expect(201)).body;
      const owner = (await api.get('/tenants/self/members').expect(200)).body.data[0].id;
      for (const missing of ['tenant:invitation:create', 'tenant:invitation:update']) {
        const key = await applicationKey(h, { name: 'r', type: 'management', permissions: ALL_TENANT.filter((p) => p !== missing) });
        await as(h.app, key).post(`/tenants/self/invitations/${created.id}/resend`).expect(403);
      }
      const noDelete = as(h.app, await applicationKey(h, { name: 'd', type: 'management', permissions: ['tenant:member:read', 'tenant:invitation:read'] }));
      await noDelete.delete(`/tenants/self/invitations/${created.id}`).expect(403);
      await noDelete.delete(`/tenants/self/members/${owner}`).expect(403);
      await noDelete.get(`/tenants/self/invitations/${created.id}`).expect(200);
    });
  });

  it('answers another tenant\'s members and invitations as absent', async () => {
    const other = await h.createTenant('Other');
    const theirs = as(h.app, other.management.key);
    const theirInvite = (await theirs.post('/tenants/self/invitations').send({ email: 'x@example.com' }).expect(201)).body;
    const theirOwner = (await theirs.get('/tenants/self/members').expect(200)).body.data[0];
    await api.get(`/tenants/self/invitations/${theirInvite.id}`).expect(404);
    await api.post(`/tenants/self/invitations/${theirInvite.id}/resend`).expect(404);
    await api.delete(`/tenants/self/invitations/${theirInvite.id}`).expect(404);
    await api.delete(`/tenants/self/members/${theirOwner.id}`).expect(404);
    expect((await api.get(`/tenants/self/members?user_id=${theirOwner.user.id}`).expect(200)).body.data).toEqual([]);
    expect((await api.get('/tenants/self/invitations').expect(200)).body.data).toEqual([]);
    await invite('x@example.com').expect(201);
  });
});

describe('the invitation flow with real e-mail in the outbox', () => {
  const outbox = mkdtempSync(join(tmpdir(), 'svc-outbox-'));
  afterAll(() => rmSync(outbox, { recursive: true, force: true }));

  it('writes the message with a working link', async () => {
    const h = await harness({}, new NodemailerMailer({ from: 'svc <no-reply@vault.example.com>', outboxDir: outbox }));
    await as(h.app, h.key).post('/tenants/self/invitations').send({ email: 'lin@example.com' }).expect(201);
    const files = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const mail = await simpleParser(readFileSync(join(outbox, files[0]!)));
    expect(mail.subject).toContain('Acme');
    expect(mail.text).toContain('Acme');
    expect(mail.html).toBeTruthy();
    const link = /https:\/\/vault\.example\.com\/invitations\/accept\?token=[^\s"<]+/.exec(mail.text ?? '')?.[0];
    expect(link).toBeDefined();
    const path = new URL(link!).pathname + new URL(link!).search;
    const page = await request(h.app).get(path).expect(200);
    expect(page.text).toContain('lin@example.com');
    const token = new URL(link!).searchParams.get('token')!;
    const member = await request(h.app).post('/invitations/accept').send({ token, first_name: 'Lin' }).expect(201);
    expect(member.body.user).toMatchObject({ email: 'lin@example.com', first_name: 'Lin' });
    const listed = await as(h.app, h.key).get('/tenants/self/members').expect(200);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toContain(member.body.id);
  });

  it('keeps no invitation link on disk once it stops working: accepted, resent, deleted or expired', async () => {
    const dir = mkdtempSync(join(outbox, 'links-'));
    const h = await harness({}, new NodemailerMailer({ from: 'svc <no-reply@vault.example.com>', outboxDir: dir }));
    const api = as(h.app, h.key);
    const links = async (): Promise<string[]> => {
      const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
      const texts = await Promise.all(files.map(async (f) => (await simpleParser(readFileSync(join(dir, f)))).text ?? ''));
      return texts.map((text) => new URL(/https:\S+accept\?token=\S+/.exec(text)![0]).searchParams.get('token')!);
    };

    const ada = (await api.post('/tenants/self/invitations').send({ email: 'ada@example.com' }).expect(201)).body;
    const [first] = await links();
    await api.post(`/tenants/self/invitations/${ada.id}/resend`).expect(200);
    const [second] = await links();
    expect(await links()).toHaveLength(1);
    expect(second).not.toBe(first);
    await request(h.app).post('/invitations/accept').send({ token: second }).expect(201);
    expect(await links()).toEqual([]);

    const bob = (await api.post('/tenants/self/invitations').send({ email: 'bob@example.com' }).expect(201)).body;
    expect(await links()).toHaveLength(1);
    await api.delete(`/tenants/self/invitations/${bob.id}`).expect(204);
    expect(readdirSync(dir)).toEqual([]);

    await api.post('/tenants/self/invitations').send({ email: 'cy@example.com' }).expect(201);
    h.clock.advanceMinutes(72 * 60 - 1);
    expect((await h.sweep()).invitationMessages).toBe(0);
    expect(await links()).toHaveLength(1);
    h.clock.advanceMinutes(1);
    expect((await h.sweep()).invitationMessages).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });
});
