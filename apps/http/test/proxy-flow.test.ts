import { makeTestCertificates, startTestServer, type TestCertificates, type TestServer } from '@svc/outbound/testing';
import request from 'supertest';
import { applicationKey, as, harness, type Harness } from './harness';

const CARD = '4111111111111111';

/**
 * The README's flow, as a user runs it: a browser collects the card with a session key, the backend keeps only the
 * token and charges it through the proxy, and a stand-in processor (a real local HTTPS server) receives the number.
 * Neither the backend's request nor the answer it gets ever holds the card number.
 */
describe('collect with a session, charge through the proxy', () => {
  let certs: TestCertificates;
  let processor: TestServer;
  let h: Harness;

  beforeAll(async () => {
    certs = makeTestCertificates();
    processor = await startTestServer((received, res) => {
      const charge = JSON.parse(received.body) as { amount: number; source: { number: string } };
      const approved = received.headers.authorization === 'Bearer sk_processor' && /^\d{16}$/.test(charge.source.number);
      res.writeHead(approved ? 200 : 402, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: approved ? 'approved' : 'declined', amount: charge.amount, last4: charge.source.number.slice(-4) }));
    }, certs);
    h = await harness({ SVC_OUTBOUND_ALLOW: `127.0.0.1:${processor.port}`, SVC_OUTBOUND_CA: certs.caFile });
  });

  afterAll(async () => {
    await processor.close();
    certs.dispose();
  });

  it('the processor receives the card number; the backend sends and receives only the token and the outcome', async () => {
    const publicKey = await applicationKey(h, { name: 'checkout page', type: 'public', permissions: ['session:create', 'token:create'] });
    const backendKey = await applicationKey(h, { name: 'orders service', type: 'private', permissions: ['session:authorize', 'token:create', 'token:read', 'token:use', 'proxy:invoke'] });

    // The browser opens a session; the backend lets it create tokens; the browser creates the card token.
    const session = await request(h.app).post('/sessions').set('SVC-API-KEY', publicKey).expect(201);
    await as(h.app, backendKey).post('/sessions/authorize').send({ nonce: session.body.nonce, permissions: ['token:create'] }).expect(200);
    const token = await as(h.app, session.body.session_key as string).post('/tokens').send({ type: 'card_number', data: CARD }).expect(201);
    const tokenId = token.body.id as string;

    // The backend charges the token through the proxy.
    const backendRequest = { amount: 1250, currency: 'EUR', source: { number: `{{ ${tokenId} }}` } };
    const charged = await request(h.app)
      .post('/proxy/charges')
      .set('SVC-API-KEY', backendKey)
      .set('SVC-PROXY-URL', `https://127.0.0.1:${processor.port}/v1`)
      .set('Authorization', 'Bearer sk_processor')
      .send(backendRequest)
      .expect(200);

    expect(processor.received).toHaveLength(1);
    expect(processor.received[0]!.url).toBe('/v1/charges');
    expect(JSON.parse(processor.received[0]!.body)).toEqual({ amount: 1250, currency: 'EUR', source: { number: CARD } });
    expect(charged.body).toEqual({ status: 'approved', amount: 1250, last4: '1111' });
    expect(charged.headers['svc-proxy-destination-status']).toBe('200');
    expect(JSON.stringify(backendRequest)).not.toContain(CARD);
    expect(charged.text).not.toContain(CARD);
    expect(JSON.stringify(charged.headers)).not.toContain(CARD);
    expect(h.logLines.join('\n')).not.toContain(CARD);
  });
});
