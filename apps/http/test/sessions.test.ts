import request from 'supertest';
import { applicationKey, as, harness, type Harness, privateKey } from './harness';

describe('sessions over HTTP', () => {
  let h: Harness;
  let backend: ReturnType<typeof as>;
  let publicKey: string;
  let publicId: string;
  let tokenId: string;
  let otherTokenId: string;

  beforeEach(async () => {
    h = await harness();
    backend = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:use', 'session:authorize'));
    const pub = await as(h.app, h.key).post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create', 'token:create'] }).expect(201);
    publicKey = pub.body.key;
    publicId = pub.body.id;
    tokenId = (await backend.post('/tokens').send({ type: 'card_number', data: '4242424242424242' }).expect(201)).body.id;
    otherTokenId = (await backend.post('/tokens').send({ type: 'card_number', data: '4111111111111111' }).expect(201)).body.id;
  });

  const openSession = async (): Promise<{ session_key: string; nonce: string; expires_at: string }> =>
    (await as(h.app, publicKey).post('/sessions').expect(201)).body;

  it('runs the browser-and-backend flow: create, authorize one token, read it, nothing else', async () => {
    const session = await openSession();
    expect(session.session_key).toMatch(/^key_ses_/);
    expect(session.expires_at).toBe('2026-01-01T00:03:00.000Z');
    const browser = as(h.app, session.session_key);
    await browser.get(`/tokens/${tokenId}`).expect(403);

    const res = await backend
      .post('/sessions/authorize')
      .send({
        nonce: session.nonce,
        rules: [{ priority: 1, conditions: [{ attribute: 'id', operator: 'equals', value: tokenId }], transform: 'reveal', permissions: ['token:read'] }],
      })
      .expect(200);
    expect(res.text).toBe('');

    expect((await browser.get(`/tokens/${tokenId}`).expect(200)).body.data).toBe('4242424242424242');
    await browser.get(`/tokens/${otherTokenId}`).expect(403);
    await browser.get('/applications/key').expect(403);

    h.clock.advanceMinutes(3);
    const expired = await browser.get(`/tokens/${tokenId}`).expect(401);
    expect(expired.body.status).toBe(401);
  });

  describe('a session never gets more than its authorizer has, token by token', () => {
    it('masks for the session what the authorizer masks, though the grant says reveal everywhere', async () => {
      const auth = as(h.app, await applicationKey(h, {
        name: 'reveals /a/ only',
        type: 'private',
        permissions: ['session:authorize'],
        rules: [
          { priority: 1, container: '/a/', transform: 'reveal', permissions: ['token:read'] },
          { priority: 2, container: '/', transform: 'mask', permissions: ['token:read'] },
        ],
      }));
      const inA = (await backend.post('/tokens').send({ type: 'card_number', data: '5105105105105100', containers: ['/a/'] }).expect(201)).body.id as string;
      expect((await auth.get(`/tokens/${tokenId}`).expect(200)).body.data).toBe('XXXXXXXXXXXX4242');
      for (const condition of [
        { attribute: 'container', operator: 'starts_with', value: '/' },
        { attribute: 'id', operator: 'equals', value: tokenId },
      ]) {
        const session = await openSession();
        await auth
          .post('/sessions/authorize')
          .send({ nonce: session.nonce, rules: [{ priority: 1, conditions: [condition], transform: 'reveal', permissions: ['token:read'] }] })
          .expect(200);
        const browser = as(h.app, session.session_key);
        expect((await browser.get(`/tokens/${tokenId}`).expect(200)).body.data).toBe('XXXXXXXXXXXX4242');
        expect((await browser.post('/detokenize').send({ x: `{{ ${tokenId} }}` })).text).not.toContain('4242424242424242');
        if (condition.attribute === 'container') expect((await browser.get(`/tokens/${inA}`).expect(200)).body.data).toBe('5105105105105100');
      }
    });

    it('reaches through a session no container its authorizer cannot read, though the grant is plain', async () => {
      const auth = as(h.app, await applicationKey(h, {
        name: 'pci masked only',
        type: 'private',
        permissions: ['session:authorize'],
        rules: [{ priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }],
      }));
      const ssn = (await backend.post('/tokens').send({ type: 'social_security_number', data: '123-45-6789' }).expect(201)).body.id as string;
      await auth.get(`/tokens/${ssn}`).expect(403);
      const session = await openSession();
      await auth.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
      const browser = as(h.app, session.session_key);
      await browser.get(`/tokens/${ssn}`).expect(403);
      expect((await browser.get(`/tokens/${tokenId}`).expect(200)).body.data).toBe('XXXXXXXXXXXX4242');
    });
  });

  it('reads a container condition as containers are written: equals "/PCI" names /pci/, starts_with is a lower-cased prefix', async () => {
    const card = (await backend.post('/tokens').send({ type: 'card_number', data: '4242424242424242' }).expect(201)).body.id as string;
    for (const condition of [
      { attribute: 'container', operator: 'equals', value: '/PCI/HIGH' },
      { attribute: 'container', operator: 'equals', value: 'pci/high/' },
      { attribute: 'container', operator: 'starts_with', value: '/PCI' },
    ]) {
      const session = await openSession();
      await backend
        .post('/sessions/authorize')
        .send({ nonce: session.nonce, rules: [{ priority: 1, conditions: [condition], transform: 'reveal', permissions: ['token:read'] }] })
        .expect(200);
      expect((await as(h.app, session.session_key).get(`/tokens/${card}`).expect(200)).body.data).toBe('4242424242424242');
    }
    const session = await openSession();
    const bad = await backend
      .post('/sessions/authorize')
      .send({ nonce: session.nonce, rules: [{ priority: 1, conditions: [{ attribute: 'container', operator: 'equals', value: '/a b/' }], transform: 'reveal', permissions: ['token:read'] }] })
      .expect(400);
    expect(Object.keys(bad.body.errors)).toEqual(['rules[0].conditions[0].value']);
  });

  it('grants plain permissions, and records the public application on tokens the session creates', async () => {
    const session = await openSession();
    await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:create'] }).expect(200);
    const created = await as(h.app, session.session_key).post('/tokens').send({ type: 'card_number', data: '4242424242424242' }).expect(201);
    expect(created.body.created_by).toBe(publicId);
    expect(created.body.data).toBe('XXXXXXXXXXXX4242');
    await as(h.app, session.session_key).get(`/tokens/${created.body.id}`).expect(403);
  });

  it('lets authorize set a later expiry, up to 24 hours', async () => {
    const session = await openSession();
    await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'], expires_at: '2026-01-01T02:00:00Z' }).expect(200);
    h.clock.set('2026-01-01T01:59:59.000Z');
    await as(h.app, session.session_key).get(`/tokens/${tokenId}`).expect(200);
    h.clock.set('2026-01-01T02:00:00.000Z');
    await as(h.app, session.session_key).get(`/tokens/${tokenId}`).expect(401);
  });

  it('uses a nonce once (409), and answers an unknown or expired one with 404', async () => {
    const session = await openSession();
    await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
    const again = await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(409);
    expect(again.body.type).toBe('https://svc.dev/errors/conflict');
    await backend.post('/sessions/authorize').send({ nonce: 'no-such-nonce', permissions: ['token:read'] }).expect(404);
    const late = await openSession();
    h.clock.advanceMinutes(3);
    await backend.post('/sessions/authorize').send({ nonce: late.nonce, permissions: ['token:read'] }).expect(404);
  });

  it('refuses the wrong kinds of key with 403', async () => {
    const privateOnly = await privateKey(h, 'token:read');
    await as(h.app, privateOnly).post('/sessions').expect(403);
    await as(h.app, await privateKey(h, 'session:authorize')).post('/sessions').expect(403);
    const session = await openSession();
    await as(h.app, publicKey).post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(403);
    await as(h.app, h.key).post('/sessions').expect(403);
    await as(h.app, session.session_key).post('/sessions').expect(403);
  });

  it.each([
    ['neither permissions nor rules', {}, 'permissions'],
    ['empty permissions and rules', { permissions: [], rules: [] }, 'permissions'],
    ['a rule with a container', { rules: [{ priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] }] }, 'rules[0].container'],
    ['a rule without conditions', { rules: [{ priority: 1, transform: 'reveal', permissions: ['token:read'] }] }, 'rules[0].conditions'],
    ['a bad condition', { rules: [{ priority: 1, conditions: [{ attribute: 'type', operator: 'is', value: 'x' }], transform: 'reveal', permissions: ['token:read'] }] }, 'rules[0].conditions[0].attribute'],
    ['a management permission', { permissions: ['application:read'] }, 'permissions[0]'],
    ['an expiry in the past', { permissions: ['token:read'], expires_at: '2025-12-31T23:00:00Z' }, 'expires_at'],
    ['an expiry beyond 24 hours', { permissions: ['token:read'], expires_at: '2026-01-02T00:00:01Z' }, 'expires_at'],
    ['an unknown field', { permissions: ['token:read'], colour: 'red' }, 'colour'],
  ])('rejects %s with a 400 and leaves the nonce usable', async (_case, body, field) => {
    const session = await openSession();
    const res = await backend.post('/sessions/authorize').send({ nonce: session.nonce, ...body }).expect(400);
    expect(Object.keys(res.body.errors)).toContain(field);
    await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
  });

  it('rejects conditions on an application rule', async () => {
    const res = await as(h.app, h.key)
      .post('/applications')
      .send({ name: 'x', type: 'private', rules: [{ priority: 1, container: '/', conditions: [{ attribute: 'id', operator: 'equals', value: 'a' }], transform: 'reveal', permissions: ['token:read'] }] })
      .expect(400);
    expect(Object.keys(res.body.errors)).toContain('rules[0].conditions');
  });

  it('keeps sessions within their tenant', async () => {
    const session = await openSession();
    const other = await h.createTenant('Other');
    const theirBackend = await applicationKey({ ...h, key: other.management.key }, { name: 'b', type: 'private', permissions: ['session:authorize', 'token:read'] });
    await as(h.app, theirBackend).post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(404);
    await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
    const theirToken = (
      await as(h.app, await applicationKey({ ...h, key: other.management.key }, { name: 'w', type: 'private', permissions: ['token:create'] }))
        .post('/tokens')
        .send({ type: 'token', data: 'theirs' })
        .expect(201)
    ).body.id;
    await as(h.app, session.session_key).get(`/tokens/${theirToken}`).expect(404);
  });

  it('dies with its public application', async () => {
    const session = await openSession();
    await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
    await as(h.app, session.session_key).get(`/tokens/${tokenId}`).expect(200);
    await as(h.app, h.key).delete(`/applications/${publicId}`).expect(204);
    await as(h.app, session.session_key).get(`/tokens/${tokenId}`).expect(401);
  });

  it('answers an unknown session key with 401', async () => {
    await request(h.app).get(`/tokens/${tokenId}`).set('SVC-API-KEY', 'key_ses_unknownunknownunknownunknown').expect(401);
  });
});
