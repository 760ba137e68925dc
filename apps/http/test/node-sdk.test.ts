import { BasisTheory, BasisTheoryClient } from '@basis-theory/node-sdk';
import { applicationKey, harness, type Harness, listening } from './harness';

/**
 * Basis Theory's own Node SDK (5.x) against a real svc listening on 127.0.0.1, with nothing but the base URL changed:
 * every call svc serves must work unchanged. The resources svc does not serve are listed in the README.
 */
const VISA = '4242424242424242';

describe('@basis-theory/node-sdk 5.x against svc', () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listening>>;
  let baseUrl: string;
  const client = (apiKey: string) => new BasisTheoryClient({ apiKey, baseUrl, maxRetries: 0 });

  beforeEach(async () => {
    h = await harness();
    server = await listening(h.app);
    baseUrl = server.url;
  });

  afterEach(() => server.close());

  const backend = () =>
    applicationKey(h, {
      name: 'sdk backend',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use', 'session:authorize'],
    });

  it('tenants.self.get and permissions.list, the first calls of a 5.x integration', async () => {
    const bt = client(h.key);
    const tenant = await bt.tenants.self.get();
    expect(tenant).toMatchObject({ id: h.tenant.tenant.id, name: 'Acme', ownerId: h.tenant.owner.user.id, type: 'PRODUCTION' });
    const permissions = await bt.permissions.list({ applicationType: 'public' });
    expect(permissions.map((p) => p.type).sort()).toEqual(['session:create', 'token:create', 'token:intent:create', 'token:update']);
    expect(permissions.every((p) => (p.applicationTypes ?? []).includes('public'))).toBe(true);
  });

  it('tokens: create, get, update (merge patch), delete, with the fields the SDK names in camelCase', async () => {
    const bt = client(await backend());
    const created = await bt.tokens.create({
      type: 'card',
      data: { number: VISA, expiration_month: 12, expiration_year: 2030, cvc: '123' },
      metadata: { customer: 'ada' },
      fingerprintExpression: '{{ data.number }}',
      deduplicateToken: true,
    });
    expect(created).toMatchObject({ type: 'card', metadata: { customer: 'ada' }, fingerprintExpression: '{{ data.number }}' });
    const indexed = await bt.tokens.create({ type: 'token', data: { email: 'ada@example.com' }, searchIndexes: ['{{ data.email }}'] });
    expect(indexed.searchIndexes).toEqual(['{{ data.email }}']);
    expect(created.createdAt).toBeInstanceOf(Date);
    const read = await bt.tokens.get(created.id!);
    expect(read.data).toMatchObject({ number: VISA });
    const updated = await bt.tokens.update(created.id!, { metadata: { customer: 'ada', plan: 'gold' } });
    expect(updated.metadata).toEqual({ customer: 'ada', plan: 'gold' });
    await bt.tokens.delete(created.id!);
    await expect(bt.tokens.get(created.id!)).rejects.toBeInstanceOf(BasisTheory.NotFoundError);
  });

  it('tokens.tokenize and tokens.detokenize round-trip a payload', async () => {
    const bt = client(await backend());
    const tokenized = (await bt.tokens.tokenize({
      card: { type: 'card_number', data: VISA },
      name: 'Ada Lovelace',
    })) as { card: { id: string; _extras: { deduplicated: boolean } }; name: string };
    expect(tokenized.card._extras.deduplicated).toBe(false);
    const detokenized = await bt.tokens.detokenize({
      number: `{{ ${tokenized.card.id} }}`,
      name: `{{ ${tokenized.name} }}`,
      whole: `{{ token: ${tokenized.card.id} | json: '$.type' }}`,
    });
    expect(detokenized).toEqual({ number: VISA, name: 'Ada Lovelace', whole: 'card_number' });
    const refused = bt.tokens.tokenize({ bad: { type: 'card_number', data: '4242424242424241' } });
    await expect(refused).rejects.toBeInstanceOf(BasisTheory.BadRequestError);
    await expect(refused).rejects.toMatchObject({ body: { errors: { 'bad.data': expect.any(Array) } } });
  });

  it('tokens.listV2 and tokens.searchV2 page through every token exactly once with the SDK pager', async () => {
    const bt = client(await backend());
    const ids = (await bt.tokens.tokenize(Array.from({ length: 25 }, (_, i) => `value ${i}`))) as string[];
    const listed: string[] = [];
    for await (const token of await bt.tokens.listV2({ type: 'token', size: 10 })) listed.push(token.id!);
    expect(listed.sort()).toEqual([...ids].sort());
    const searched: string[] = [];
    for await (const token of await bt.tokens.searchV2({ query: 'type:token', size: 7 })) searched.push(token.id!);
    expect(searched.sort()).toEqual([...ids].sort());
  });

  it('tokenIntents: create, get, delete, and a token made from one', async () => {
    const bt = client(await backend());
    const intents = client(await applicationKey(h, { name: 'intents', type: 'private', permissions: ['token:intent:create', 'token:intent:read', 'token:intent:delete'] }));
    const intent = await intents.tokenIntents.create({ type: 'card', data: { number: VISA, expiration_month: 12, expiration_year: 2030, cvc: '123' } });
    expect(intent.card).toMatchObject({ bin: '424242', last4: '4242', brand: 'visa' });
    expect(JSON.stringify(intent)).not.toContain(VISA);
    expect((await intents.tokenIntents.get(intent.id!)).id).toBe(intent.id);
    const token = await bt.tokens.create({ type: 'card', tokenIntentId: intent.id } as BasisTheory.CreateTokenRequest);
    expect((await bt.tokens.get(token.id!)).data).toEqual({ number: VISA, expiration_month: 12, expiration_year: 2030 });
    await expect(intents.tokenIntents.get(intent.id!)).rejects.toBeInstanceOf(BasisTheory.NotFoundError);
    const another = await intents.tokenIntents.create({ type: 'card', data: { number: VISA, expiration_month: 1, expiration_year: 2031 } });
    await intents.tokenIntents.delete(another.id!);
    await expect(intents.tokenIntents.get(another.id!)).rejects.toBeInstanceOf(BasisTheory.NotFoundError);
  });

  it('applicationKeys: a second key, listed without values, revoked alone; applications CRUD', async () => {
    const bt = client(h.key);
    const app = await bt.applications.create({ name: 'rotating', type: 'private', permissions: ['token:create'] });
    const second = await bt.applicationKeys.create(app.id!);
    expect(second.key).toMatch(/^key_/);
    const listed = await bt.applicationKeys.list(app.id!);
    expect(listed.map((k) => k.id)).toContain(second.id);
    expect(JSON.stringify(listed)).not.toContain(second.key!);
    expect((await bt.applicationKeys.get(app.id!, second.id!)).id).toBe(second.id);
    await expect(client(second.key!).tokens.create({ type: 'token', data: 'x' })).resolves.toMatchObject({ type: 'token' });
    await bt.applicationKeys.delete(app.id!, second.id!);
    await expect(client(second.key!).tokens.create({ type: 'token', data: 'x' })).rejects.toBeInstanceOf(BasisTheory.UnauthorizedError);
    await expect(client(app.key!).tokens.create({ type: 'token', data: 'y' })).resolves.toMatchObject({ type: 'token' });
    expect((await bt.applications.get(app.id!)).name).toBe('rotating');
    expect((await bt.applications.update(app.id!, { name: 'renamed', permissions: ['token:create', 'token:read'] })).name).toBe('renamed');
    await bt.applications.delete(app.id!);
    await expect(bt.applications.get(app.id!)).rejects.toBeInstanceOf(BasisTheory.NotFoundError);
  });

  it('sessions: a public key creates one, a private key authorizes it, the session reads the token', async () => {
    const bt = client(await backend());
    const token = await bt.tokens.create({ type: 'token', data: 'for the browser' });
    const pub = client(await applicationKey(h, { name: 'web', type: 'public', permissions: ['session:create', 'token:create'] }));
    const session = await pub.sessions.create();
    expect(session.sessionKey).toMatch(/^key_/);
    await bt.sessions.authorize({ nonce: session.nonce!, permissions: ['token:read'] });
    const read = await client(session.sessionKey!).tokens.get(token.id!);
    expect(read.id).toBe(token.id);
  });

  it('tenants.members and tenants.invitations', async () => {
    const bt = client(h.key);
    const members = await bt.tenants.members.list();
    expect(members.data?.map((m) => m.role)).toEqual(['OWNER']);
    const invitation = await bt.tenants.invitations.create({ email: 'grace@example.com' });
    expect(invitation).toMatchObject({ email: 'grace@example.com', status: 'PENDING' });
    expect((await bt.tenants.invitations.get(invitation.id!)).id).toBe(invitation.id);
    expect((await bt.tenants.invitations.list()).data?.map((i) => i.id)).toEqual([invitation.id]);
    expect((await bt.tenants.invitations.resend(invitation.id!)).id).toBe(invitation.id);
    await bt.tenants.invitations.delete(invitation.id!);
    await expect(bt.tenants.invitations.get(invitation.id!)).rejects.toBeInstanceOf(BasisTheory.NotFoundError);
  });

  it('answers errors as the SDK types them: 401, 403, 404', async () => {
    await expect(client('key_unknown_000000000000').tokens.get('x-y-z')).rejects.toBeInstanceOf(BasisTheory.UnauthorizedError);
    await expect(client(h.key).tokens.get('x-y-z')).rejects.toBeInstanceOf(BasisTheory.ForbiddenError);
    await expect(client(await backend()).tokens.get('no-such-token')).rejects.toBeInstanceOf(BasisTheory.NotFoundError);
  });
});
