import { applicationKey, as, harness, type Harness, privateKey } from './harness';

/** Ways a key could read more than its rules allow, found by review: each must be refused. */
describe('no escalation to plaintext', () => {
  let h: Harness;
  let owner: ReturnType<typeof as>;
  let victim: string;

  beforeEach(async () => {
    h = await harness();
    owner = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:use'));
    victim = (await owner.post('/tokens').send({ type: 'card_number', data: '4111111111111111' }).expect(201)).body.id;
  });

  const patch = (api: ReturnType<typeof as>, body: object) => api.patch(`/tokens/${victim}`).set('Content-Type', 'application/merge-patch+json').send(body);

  it.each([
    ['a fingerprint expression', { fingerprint_expression: '{{ data | slice: 0, 1 }}' }],
    ['search indexes', { search_indexes: ['{{ data }}'] }],
    ['a mask', { mask: '{{ data }}' }],
  ])('refuses %s change from a key that may only mask', async (_case, body) => {
    const masker = as(h.app, await privateKey(h, 'token:read', 'token:update'));
    await patch(masker, body).expect(403);
    const fingerprint = (await owner.get(`/tokens/${victim}`).expect(200)).body.fingerprint;
    await patch(owner, {}).expect(200);
    expect((await owner.get(`/tokens/${victim}`).expect(200)).body.fingerprint).toBe(fingerprint);
  });

  it('answers a PATCH with the read transform, not the update rule\'s', async () => {
    const pub = as(
      h.app,
      await applicationKey(h, { name: 'web', type: 'public', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:update'] }] }),
    );
    const res = await patch(pub, { metadata: { seen: 'yes' } }).expect(200);
    expect(res.body).not.toHaveProperty('data');
    const masker = as(h.app, await applicationKey(h, {
      name: 'm',
      type: 'private',
      rules: [
        { priority: 1, container: '/', transform: 'mask', permissions: ['token:read'] },
        { priority: 2, container: '/', transform: 'reveal', permissions: ['token:update'] },
      ],
    }));
    expect((await patch(masker, { metadata: { again: 'yes' } }).expect(200)).body.data).toBe('XXXXXXXXXXXX1111');
  });

  it('keeps sessions within what the authorizing key holds', async () => {
    const pub = as(h.app, await applicationKey(h, { name: 'web', type: 'public', permissions: ['session:create'] }));
    const onlyAuthorize = as(h.app, await privateKey(h, 'session:authorize'));
    const session = (await pub.post('/sessions').expect(201)).body;
    await onlyAuthorize.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read', 'token:use'] }).expect(403);
    const maskOnly = as(h.app, await privateKey(h, 'session:authorize', 'token:read'));
    await maskOnly
      .post('/sessions/authorize')
      .send({ nonce: session.nonce, rules: [{ priority: 1, conditions: [{ attribute: 'id', operator: 'equals', value: victim }], transform: 'reveal', permissions: ['token:read'] }] })
      .expect(403);
    await maskOnly.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
    expect((await as(h.app, session.session_key).get(`/tokens/${victim}`).expect(200)).body.data).toBe('XXXXXXXXXXXX1111');
  });

  it('refuses conditions with an empty value', async () => {
    const pub = as(h.app, await applicationKey(h, { name: 'web', type: 'public', permissions: ['session:create'] }));
    const session = (await pub.post('/sessions').expect(201)).body;
    const backend = as(h.app, await privateKey(h, 'session:authorize', 'token:read', 'token:use'));
    const res = await backend.post('/sessions/authorize').send({
      nonce: session.nonce,
      rules: [{ priority: 1, conditions: [{ attribute: 'container', operator: 'starts_with', value: '' }], transform: 'reveal', permissions: ['token:read'] }],
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['rules[0].conditions[0].value']);
  });

  it('never lets a cvc feed a fingerprint that outlives it', async () => {
    const card = (cvc: string) => ({ type: 'card', data: { number: '4242424242424242', cvc }, fingerprint_expression: '{{ data.number }}{{ data.cvc }}' });
    const a = (await owner.post('/tokens').send(card('123')).expect(201)).body.fingerprint;
    const b = (await owner.post('/tokens').send(card('456')).expect(201)).body.fingerprint;
    expect(a).toBe(b);
  });

  it('refuses an id expression that copies the data', async () => {
    const res = await owner.post('/tokens').send({ id: 'tok_{{ data }}', type: 'card_number', data: '4242424242424242' }).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['id']);
    expect(JSON.stringify(res.body)).not.toContain('4242424242424242');
  });

  it('refuses a mask too slow to evaluate, so none can be planted for readers', async () => {
    const slow = '{% for i in (1..200000) %}{% endfor %}{{ data | last4 }}';
    const res = await owner.post('/tokens').send({ type: 'token', data: 'abcd', mask: Array.from({ length: 10 }, () => slow) }).expect(400);
    expect(Object.keys(res.body.errors)[0]).toMatch(/^mask/);
  });
});
