import type { AuditEvent, WebhookDelivery } from '@svc/core';
import request from 'supertest';
import { as, harness, type Harness } from './harness';

/** Distinctive token data: each value must appear nowhere in the audit log or the webhook outbox. */
const CARD = { number: '4000056655665556', expiration_month: 11, expiration_year: 2031, cvc: '7391' };
const CARD_NUMBER = '5105105105105100';
const BANK = { routing_number: '021000021', account_number: '98765432101234' };
const US_ACCOUNT = '000123456789';
const US_ROUTING = '011000015';
const SSN = '536-22-8457';
const EIN = '41-7395284';
const NESTED = { pet: { names: ['zebra-quokka-secret', { inner: 'marmot-plaintext-secret' }] }, flag: 'capybara-secret' };
const PLAIN = 'papaya-secret-string';
const TOKENIZED = ['tokenized-kiwi-secret', 'tokenized-fig-secret'];
const INTENT = '6011111111111117';
const REJECTED = 'rejected-grape-secret';

/** Every event of every stream (the tenants' and the system stream), as stored. */
async function everyEvent(h: Harness): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for (const stream of await h.store.auditLog.streams()) {
    for (let page = 1; ; page++) {
      const found = await h.store.auditLog.list(stream, {}, { page, size: 100 });
      events.push(...found.items);
      if (page * 100 >= found.total) break;
    }
  }
  return events;
}

/**
 * A full HTTP run over every kind of secret svc handles, then a scan of every audit event and every webhook delivery
 * for any of them (beyond.md §5: events never carry token data, keys, nonces or invitation secrets; ADR 4 §6).
 */
/**
 * Whether `text` holds `secret`. A value shorter than 8 characters (a cvc, a last four) counts only standing alone:
 * four digits turn up by chance inside the ids, hashes and trace ids the events rightly hold (this scan once failed on
 * a cvc found in a UUID), while a leak of one (`cvc 7391`, `"7391"`) stands apart from letters, digits and dashes.
 */
function holds(text: string, secret: string): boolean {
  if (secret.length >= 8) return text.includes(secret);
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_-])${escaped}(?![A-Za-z0-9_-])`).test(text);
}

describe('no plaintext, key or secret in the audit log or the outbox', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await harness();
  });

  it('scans every event of a full run for every value the run used', async () => {
    const secrets: string[] = ['8462', h.key, CARD.number, CARD.cvc, CARD_NUMBER, BANK.account_number, US_ACCOUNT, US_ROUTING, SSN, EIN, PLAIN, INTENT, REJECTED, ...TOKENIZED];
    secrets.push('zebra-quokka-secret', 'marmot-plaintext-secret', 'capybara-secret', SSN.replace(/-/g, ''), EIN.replace(/-/g, ''));
    const mgmt = as(h.app, h.key);

    const hook = (await mgmt.post('/webhooks').send({ name: 'All', url: 'https://hooks.example.com/x', events: ['token.created', 'token.updated', 'token.deleted', 'application.created'] }).expect(201)).body;
    secrets.push(hook.secret);
    const made = (await mgmt.post('/applications').send({ name: 'backend', type: 'private', permissions: ['token:create', 'token:read', 'token:use', 'token:update', 'token:delete', 'token:search', 'session:authorize', 'token:intent:create', 'token:intent:read'] }).expect(201)).body;
    secrets.push(made.key);
    const key = (await mgmt.post(`/applications/${made.id}/keys`).expect(201)).body.key as string;
    secrets.push(key);
    const backend = as(h.app, key);

    // Tokens of every type, with data worth stealing.
    const bodies = [
      { type: 'card', data: CARD },
      { type: 'card_number', data: CARD_NUMBER },
      { type: 'bank', data: BANK },
      { type: 'us_bank_account_number', data: US_ACCOUNT },
      { type: 'us_bank_routing_number', data: US_ROUTING },
      { type: 'social_security_number', data: SSN },
      { type: 'employer_id_number', data: EIN },
      { type: 'token', data: NESTED },
      { type: 'token', data: PLAIN, search_indexes: ['{{ data }}'] },
    ];
    const ids: string[] = [];
    for (const body of bodies) ids.push((await backend.post('/tokens').send(body).expect(201)).body.id);
    await backend.post('/tokens').send({ type: 'card_number', data: REJECTED }).expect(400);
    await backend.post('/tokens').send({ type: 'token', data: REJECTED, id: ids[0] }).expect(409);

    // Reveal, read masked, update, search by data (v1 and v2, good and broken queries), tokenize, detokenize.
    for (const id of ids) await backend.get(`/tokens/${id}`).expect(200);
    await backend.patch(`/tokens/${ids[8]}`).set('Content-Type', 'application/merge-patch+json').send({ data: PLAIN }).expect(200);
    await backend.post('/tokens/search').send({ query: `data:${PLAIN}` }).expect(200);
    await backend.post('/tokens/search').send({ query: `type:token AND (data:"${PLAIN}" OR data:${CARD_NUMBER}) AND NOT data:${SSN}` }).expect(200);
    await backend.post('/v2/tokens/search').send({ query: `data:${PLAIN}` }).expect(200);
    await backend.post('/tokens/search').send({ query: `data:"${REJECTED}` }).expect(400);
    await backend.post('/tokens/search').send({ query: `nonsense:${REJECTED}` }).expect(400);
    const tokenized = (await backend.post('/tokenize').send({ a: TOKENIZED[0], b: { type: 'token', data: TOKENIZED[1] } }).expect(201)).body;
    await backend.post('/detokenize').send({ all: ids.map((id) => `{{ ${id} }}`), a: `{{ ${tokenized.a} }}` }).expect(200);
    await backend.post('/detokenize').send({ x: `{{ ${ids[0]} | json: '$.${REJECTED}' }}` }).expect(400);

    // A token intent.
    const intent = (await backend.post('/token-intents').send({ type: 'card', data: { number: INTENT, expiration_month: 3, expiration_year: 2032, cvc: '8462' } }).expect(201)).body;
    await backend.get(`/token-intents/${intent.id}`).expect(200);

    // Sessions: the nonce and the session key.
    const pub = (await mgmt.post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create'] }).expect(201)).body;
    secrets.push(pub.key);
    const session = (await as(h.app, pub.key).post('/sessions').expect(201)).body;
    secrets.push(session.nonce, session.session_key);
    await backend.post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
    await backend.post('/sessions/authorize').send({ nonce: 'nonce-never-issued-secret' }).expect((res) => expect(res.status).toBeGreaterThanOrEqual(400));
    secrets.push('nonce-never-issued-secret');
    await as(h.app, session.session_key).get(`/tokens/${ids[1]}`).expect(200);

    // Invitations: the link's secret, resent, accepted; a made-up secret.
    const invitation = (await mgmt.post('/tenants/self/invitations').send({ email: 'grace@example.com' }).expect(201)).body;
    secrets.push(h.mailer.lastToken());
    await mgmt.post(`/tenants/self/invitations/${invitation.id}/resend`).expect(200);
    secrets.push(h.mailer.lastToken());
    await request(h.app).post('/invitations/accept').send({ token: h.mailer.lastToken(), first_name: 'Grace' }).expect(201);
    await request(h.app).post('/invitations/accept').send({ token: 'invitation-made-up-secret' }).expect(410);
    secrets.push('invitation-made-up-secret');

    // Keys regenerated and refused: a wrong key in the system stream, a revoked one in the tenant's.
    const regenerated = (await mgmt.post(`/applications/${made.id}/regenerate`).expect(200)).body.key as string;
    secrets.push(regenerated);
    await as(h.app, 'key_wrong_but_secret_looking_value').get(`/tokens/${ids[0]}`).expect(401);
    await as(h.app, key).get(`/tokens/${ids[0]}`).expect(401);
    secrets.push('key_wrong_but_secret_looking_value');
    await as(h.app, regenerated).delete(`/tokens/${ids[2]}`).expect(204);

    await h.settleAudit();
    const events = await everyEvent(h);
    expect(events.some((e) => e.tenantId === 'system')).toBe(true);
    expect(events.some((e) => e.operation === 'search')).toBe(true);
    expect(events.filter((e) => e.operation === 'detokenize' && e.outcome === 'success').length).toBe(ids.length + 1);
    const text = JSON.stringify(events);
    // The scan sees what the events do hold: ids, and searches with their data values as ***.
    for (const id of [...ids, hook.id, made.id, invitation.id, intent.id]) expect(text).toContain(id);
    expect(events.filter((e) => e.operation === 'search' && e.outcome === 'success').map((e) => e.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('data:***'), expect.stringMatching(/data:\*\*\*.*data:\*\*\*.*data:\*\*\*/)]),
    );
    for (const secret of secrets) expect([secret, holds(text, secret)]).toEqual([secret, false]);
    // Case and spacing changed: a search value is lower-cased before it is blinded.
    for (const secret of secrets) expect([secret, holds(text.toLowerCase(), secret.toLowerCase())]).toEqual([secret, false]);

    const deliveries: readonly WebhookDelivery[] = (await h.store.webhookDeliveries.list(h.tenant.tenant.id, hook.id, { page: 1, size: 100 })).items;
    expect(deliveries.length).toBeGreaterThanOrEqual(bodies.length);
    const outbox = JSON.stringify(deliveries);
    for (const secret of secrets) expect([secret, holds(outbox, secret)]).toEqual([secret, false]);
    // Nor in the request log.
    const log = h.logLines.join('\n');
    for (const secret of secrets) expect([secret, holds(log, secret)]).toEqual([secret, false]);
  });
});
