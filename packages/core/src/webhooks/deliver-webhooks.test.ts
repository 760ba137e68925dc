import { createHmac } from 'node:crypto';
import { retryDelay, signWebhook } from './deliver-webhooks';

describe('webhook signatures and backoff', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 keyed by the secret\'s UTF-8 bytes, as hex', () => {
    const body = '{"event":{"id":"e1"},"delivered_at":"2026-01-01T00:00:00.000Z"}';
    const expected = createHmac('sha256', 'whsec_ünïcode').update(`1767225600.${body}`).digest('hex');
    expect(signWebhook('whsec_ünïcode', 1767225600, body)).toBe(`t=1767225600,v1=${expected}`);
    expect(signWebhook('whsec_other', 1767225600, body)).not.toBe(signWebhook('whsec_ünïcode', 1767225600, body));
    expect(signWebhook('whsec_ünïcode', 1767225601, body)).not.toBe(signWebhook('whsec_ünïcode', 1767225600, body));
  });

  it('backs off from 1 s, doubling, to at most an hour', () => {
    expect([1, 2, 3, 4, 12, 13, 40, 1_000].map(retryDelay)).toEqual([1_000, 2_000, 4_000, 8_000, 2_048_000, 3_600_000, 3_600_000, 3_600_000]);
  });
});
