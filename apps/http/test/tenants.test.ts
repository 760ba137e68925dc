import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey, INVITATION_LIFETIME_MS, type InvitationMessage, KeyedQueue, type Mailer } from '@svc/core';
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
    // created_date: the name the Basis Theory SDK reads; the same instant as created_at.
    expect(res.body.data[0].created_date).toBe(res.body.data[0].created_at);
    const refused = await api.delete(`/tenants/self/members/${res.body.data[0].id}`).expect(422);
    expect(refused.body.type).toBe('https://svc.dev/errors/unprocessable');
  });

  it('invites, sends a link, accepts it once, and lists the new ADMIN member', async () => {
    const created = await invite('Grace@Example.com').expect(201);
    expect(created.body).toMatchObject({ email: 'grace@example.com', role: 'ADMIN', status: 'PENDING', tenant_id: h.tenant.tenant.id, expires_at: '2026-01-04T00:00:00.000Z' });
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
    const upper = await api.get(`/tenants/self/members?user_id=${String(member.body.user.id).toUpperCase()}`).expect(200);
    expect(upper.body.data.map((m: { id: string }) => m.id)).toEqual([member.body.id]);
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

  it("takes the Basis Theory SDK's role when it is ADMIN, the role acceptance gives, and refuses any other", async () => {
    const made = await api.post('/tenants/self/invitations').send({ email: 'ada@example.com', role: 'ADMIN' }).expect(201);
    expect(made.body.role).toBe('ADMIN');
    for (const role of ['OWNER', 'admin', 7, '']) {
      const res = await api.post('/tenants/self/invitations').send({ email: 'bob@example.com', role }).expect(400);
      expect([role, Object.keys(res.body.errors)]).toEqual([role, ['role']]);
    }
    expect((await api.get('/tenants/self/invitations').expect(200)).body.pagination.total_items).toBe(1);
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

  it('answers 409 INVITATION_CHANGED, having sent nothing, when the invitation changes under every resend attempt', async () => {
    const created = (await invite('ada@example.com').expect(201)).body;
    const token = h.mailer.lastToken();
    const invitations = h.store.invitations;
    const update = invitations.update;
    // Another process resends in between every read and write: each conditional write finds another secret.
    invitations.update = async () => false;
    try {
      const res = await api.post(`/tenants/self/invitations/${created.id}/resend`).expect(409);
      expect(res.body).toMatchObject({ type: 'https://svc.dev/errors/conflict', status: 409 });
      expect(res.body.detail).toContain('kept changing');
    } finally {
      invitations.update = update;
    }
    expect(h.mailer.sent).toHaveLength(1);
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

/** The outbox mailer, remembering every link it was handed, able to hold its next message until released. */
class WatchedOutbox implements Mailer {
  /** The secret of every link sent, in order. */
  readonly tokens: string[] = [];
  private held: { readonly reached: () => void; readonly gate: Promise<boolean> } | undefined;

  constructor(private readonly outbox: NodemailerMailer) {}

  /**
   * The next message waits before it is written until `release()` (or fails at `fail()`, as a mail server may);
   * `reached` settles when it starts waiting.
   */
  holdNext(): { readonly reached: Promise<void>; release(): void; fail(): void } {
    let open!: (send: boolean) => void;
    const gate = new Promise<boolean>((resolve) => (open = resolve));
    const reached = new Promise<void>((resolve) => (this.held = { reached: resolve, gate }));
    return { reached, release: () => open(true), fail: () => open(false) };
  }

  async sendInvitation(message: InvitationMessage): Promise<void> {
    this.tokens.push(new URL(message.acceptUrl).searchParams.get('token')!);
    const held = this.held;
    this.held = undefined;
    if (held) {
      held.reached();
      if (!(await held.gate)) throw new Error('the mail server refused the message');
    }
    await this.outbox.sendInvitation(message);
  }

  withdrawInvitation(invitationId: string): Promise<void> {
    return this.outbox.withdrawInvitation(invitationId);
  }

  discardExpired(now: Date): Promise<number> {
    return this.outbox.discardExpired(now);
  }
}

/**
 * Settles once `count` pieces of work have been queued behind busy keys of any KeyedQueue (the work then runs as
 * before), or once `done` settles, whichever comes first.
 *
 * A racing request can stop only by waiting behind the one that is held. Released when they have queued, or else
 * when they have finished, the held request then overlaps them as far as the code lets it, every time: when they
 * wait, it finishes first; when nothing makes them wait, they finish first and it writes last.
 */
async function queuedBehindOrDone(count: number, done: Promise<unknown>): Promise<void> {
  const run = Object.getOwnPropertyDescriptor(KeyedQueue.prototype, 'run')!.value as KeyedQueue['run'];
  let queued = 0;
  let allQueued!: () => void;
  const queuedBehind = new Promise<void>((resolve) => (allQueued = resolve));
  KeyedQueue.prototype.run = function <T>(this: KeyedQueue, key: string, work: () => Promise<T>): Promise<T> {
    if (this.isBusy(key) && ++queued === count) allQueued();
    return run.call(this, key, work) as Promise<T>;
  };
  try {
    await Promise.race([queuedBehind, done]);
  } finally {
    KeyedQueue.prototype.run = run;
  }
}

/** Holds the next call of `target[method]` after it has run, until `release()`; `reached` settles once it has run. */
function holdNextCall(target: object, method: string): { readonly reached: Promise<void>; release(): void } {
  const methods = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const hadOwn = Object.prototype.hasOwnProperty.call(target, method);
  const original = methods[method]!;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  methods[method] = async function (this: unknown, ...args: unknown[]) {
    if (hadOwn) methods[method] = original;
    else delete methods[method];
    const result = await original.apply(this, args);
    arrived();
    await gate;
    return result;
  };
  return { reached, release };
}

describe('the invitation flow with real e-mail in the outbox', () => {
  const outbox = mkdtempSync(join(tmpdir(), 'svc-outbox-'));
  afterAll(() => rmSync(outbox, { recursive: true, force: true }));
  const FROM = 'svc <no-reply@vault.example.com>';

  /** The secrets of the links in the outbox's .eml files. */
  const linksIn = async (dir: string): Promise<string[]> => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
    const texts = await Promise.all(files.map(async (f) => (await simpleParser(readFileSync(join(dir, f)))).text ?? ''));
    return texts.map((text) => new URL(/https:\S+accept\?token=\S+/.exec(text)![0]).searchParams.get('token')!);
  };

  /** The app over a fresh outbox, with one invitation sent. */
  async function withInvitation() {
    const dir = mkdtempSync(join(outbox, 'race-'));
    const mailer = new WatchedOutbox(new NodemailerMailer({ from: FROM, outboxDir: dir, maxLinkLifetimeMs: INVITATION_LIFETIME_MS }));
    const h = await harness({}, mailer);
    const api = as(h.app, h.key);
    const invitation = (await api.post('/tenants/self/invitations').send({ email: 'ada@example.com' }).expect(201)).body as { id: string };
    const preview = async (token: string) => (await request(h.app).get(`/invitations/accept?token=${encodeURIComponent(token)}`)).status;
    const resend = () => api.post(`/tenants/self/invitations/${invitation.id}/resend`);
    return { dir, mailer, h, api, invitation, preview, resend };
  }

  it('writes the message with a working link', async () => {
    const h = await harness({}, new NodemailerMailer({ from: FROM, outboxDir: outbox, maxLinkLifetimeMs: INVITATION_LIFETIME_MS }));
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
    const h = await harness({}, new NodemailerMailer({ from: FROM, outboxDir: dir, maxLinkLifetimeMs: INVITATION_LIFETIME_MS }));
    const api = as(h.app, h.key);
    const links = () => linksIn(dir);

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

    const cy = (await api.post('/tenants/self/invitations').send({ email: 'cy@example.com' }).expect(201)).body;
    // Written now by the app's clock, whatever the date of the machine running the test.
    utimesSync(join(dir, `invitation-${cy.id}.eml`), h.clock.now(), h.clock.now());
    h.clock.advanceMinutes(72 * 60 - 1);
    expect((await h.sweep()).invitationMessages).toBe(0);
    expect(await links()).toHaveLength(1);
    h.clock.advanceMinutes(1);
    expect((await h.sweep()).invitationMessages).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  // Each race holds the first request's e-mail until the others have gone as far as they can (see queuedBehindOrDone),
  // so they overlap every time instead of only when the scheduler happens to interleave them.
  it.each([2, 3])('answers %i concurrent resends all with 200, and the outbox keeps the one link that works', async (count) => {
    const { dir, mailer, preview, resend } = await withInvitation();
    const held = mailer.holdNext();
    const first = resend().then((res) => res.status);
    await held.reached;
    const others = Array.from({ length: count - 1 }, () => resend().then((res) => res.status));
    await queuedBehindOrDone(count - 1, Promise.all(others));
    held.release();

    expect(await Promise.all([first, ...others])).toEqual(Array.from({ length: count }, () => 200));
    const inFile = await linksIn(dir);
    expect(inFile).toHaveLength(1);
    expect(mailer.tokens).toHaveLength(count + 1);
    for (const token of mailer.tokens) expect(await preview(token)).toBe(token === inFile[0] ? 200 : 410);
  });

  // Another process (MongoDB deployments run several) changes the invitation straight in the store.
  const resendElsewhere = async (h: Harness, id: string, secret: string) => {
    const current = (await h.store.invitations.findById(h.tenant.tenant.id, id))!;
    const resent = { ...current, secretHash: hashKey(secret), expiresAt: new Date(h.clock.now().getTime() + INVITATION_LIFETIME_MS) };
    expect(await h.store.invitations.update(resent, { expectedSecretHash: current.secretHash })).toBe(true);
  };

  it('keeps the link another resend wrote when a resend whose mail failed undoes itself (503)', async () => {
    const { h, dir, mailer, invitation, preview, resend } = await withInvitation();
    const [original] = await linksIn(dir);
    const held = mailer.holdNext();
    const failed = resend().then((res) => res.status);
    await held.reached;
    await resendElsewhere(h, invitation.id, 'resent-elsewhere');
    held.fail();

    expect(await failed).toBe(503);
    expect(await preview('resent-elsewhere')).toBe(200);
    expect(await preview(original!)).toBe(410);
    expect(await preview(mailer.tokens.at(-1)!)).toBe(410);
  });

  it('restores the link another resend wrote, not the one it read, when a resend overtaken after its read fails (503)', async () => {
    const { h, dir, mailer, invitation, preview, resend } = await withInvitation();
    const [original] = await linksIn(dir);
    const read = holdNextCall(h.store.invitations, 'findById');
    const held = mailer.holdNext();
    const failed = resend().then((res) => res.status);
    await read.reached;
    await resendElsewhere(h, invitation.id, 'resent-elsewhere');
    read.release();
    await held.reached;
    held.fail();

    expect(await failed).toBe(503);
    expect(await preview('resent-elsewhere')).toBe(200);
    expect(await preview(original!)).toBe(410);
    expect(await preview(mailer.tokens.at(-1)!)).toBe(410);
  });

  it('leaves no file behind when a delete overlaps a resend', async () => {
    const { dir, mailer, api, invitation, preview, resend } = await withInvitation();
    const held = mailer.holdNext();
    const resent = resend().then((res) => res.status);
    await held.reached;
    const deleted = api.delete(`/tenants/self/invitations/${invitation.id}`).then((res) => res.status);
    await queuedBehindOrDone(1, deleted);
    held.release();

    expect([await resent, await deleted]).toEqual([200, 204]);
    await api.get(`/tenants/self/invitations/${invitation.id}`).expect(404);
    expect(readdirSync(dir)).toEqual([]);
    for (const token of mailer.tokens) expect(await preview(token)).toBe(410);
  });

  it('refuses with 410 an old link whose acceptance overlapped the resend that replaced it', async () => {
    const { h, dir, preview, resend } = await withInvitation();
    const [old] = await linksIn(dir);
    // The acceptance has found the invitation by the old link's secret when the resend runs from start to finish.
    const read = holdNextCall(h.store.invitations, 'findBySecretHash');
    const accepted = request(h.app).post('/invitations/accept').send({ token: old }).then((res) => res.status);
    await read.reached;
    await resend().expect(200);
    read.release();

    expect(await accepted).toBe(410);
    const [inFile] = await linksIn(dir);
    expect(inFile).not.toBe(old);
    expect(await preview(old!)).toBe(410);
    const member = await request(h.app).post('/invitations/accept').send({ token: inFile }).expect(201);
    expect(member.body.user.email).toBe('ada@example.com');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('sweeps away outbox files whose links are dead by age: the previous naming, no Expires header, crash leftovers', async () => {
    const { h, dir, invitation } = await withInvitation();
    const now = h.clock.now().getTime();
    const at = (ms: number) => new Date(now - ms);
    const write = (name: string, writtenAt: Date) => {
      writeFileSync(join(dir, name), 'Subject: an invitation\r\n\r\nhttps://vault.example.com/invitations/accept?token=old', { mode: 0o600 });
      utimesSync(join(dir, name), writtenAt, writtenAt);
    };
    const legacy = (sentAt: Date) => `${sentAt.toISOString().replace(/:/g, '-')}-0123456789abcdef.eml`;
    const id = '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
    const dead = [legacy(at(INVITATION_LIFETIME_MS)), `invitation-${id}.eml`, `.invitation-${id}.eml.tmp`, `.invitation-${id}.eml.0123456789abcdef.tmp`];
    const alive = [legacy(at(INVITATION_LIFETIME_MS - 60_000)), `invitation-${id.replace('7a', '8b')}.eml`, `.invitation-${id}.eml.fedcba9876543210.tmp`];
    // A legacy name tells when its link was sent; a new mtime (copied, restored) does not make it younger.
    write(dead[0]!, h.clock.now());
    write(dead[1]!, at(INVITATION_LIFETIME_MS));
    write(dead[2]!, at(60_000));
    write(dead[3]!, at(60_000));
    write(alive[0]!, at(INVITATION_LIFETIME_MS - 60_000));
    write(alive[1]!, at(INVITATION_LIFETIME_MS - 60_000));
    write(alive[2]!, at(59_999));
    const invitationFile = `invitation-${invitation.id}.eml`;
    utimesSync(join(dir, invitationFile), h.clock.now(), h.clock.now());

    expect((await h.sweep()).invitationMessages).toBe(dead.length);
    expect(readdirSync(dir).sort()).toEqual([...alive, invitationFile].sort());
  });
});
