import fc from 'fast-check';
import { destinationOf } from './invoke-proxy';
import { answeredHeaders, forwardedRequestHeaders } from './proxy-headers';

describe('destinationOf', () => {
  it.each([
    ['https://api.example.com', '', '', 'https://api.example.com/'],
    ['https://api.example.com/base', '/v1/charges', '', 'https://api.example.com/base/v1/charges'],
    ['https://api.example.com/base/', '/v1', 'a=1', 'https://api.example.com/base/v1?a=1'],
    ['https://api.example.com/base?key=x', '/v1', 'a=1&b=2', 'https://api.example.com/base/v1?key=x&a=1&b=2'],
    ['https://api.example.com:8443/', '/%20x', '', 'https://api.example.com:8443/%20x'],
  ])('%s + %s ? %s = %s', (base, path, query, expected) => {
    expect(destinationOf(base, { path, query })).toBe(expected);
  });

  it('is undefined for what is not a URL', () => {
    expect(destinationOf('not a url', { path: '', query: '' })).toBeUndefined();
    expect(destinationOf('', { path: '/x', query: '' })).toBeUndefined();
  });

  it('never changes the host or the scheme, whatever path and query are appended (without dot segments)', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9@:;=+$,!*'()~_-]{1,12}$/).filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), fc.stringMatching(/^[A-Za-z0-9=&%@/:?_.-]{0,30}$/), (segments, query) => {
        const url = destinationOf('https://api.example.com/base', { path: segments.map((s) => `/${s}`).join(''), query });
        if (url === undefined) return;
        const parsed = new URL(url);
        expect(parsed.protocol).toBe('https:');
        expect(parsed.host).toBe('api.example.com');
        expect(parsed.pathname.startsWith('/base')).toBe(true);
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });
});

describe('forwarded headers', () => {
  it('drops hop-by-hop headers, what Connection names, the API key, host, content-length and svc proxy headers', () => {
    const out = forwardedRequestHeaders({
      connection: 'keep-alive, X-Secret-Hop',
      'keep-alive': 'timeout=5',
      'x-secret-hop': 'x',
      'transfer-encoding': 'chunked',
      te: 'trailers',
      upgrade: 'h2c',
      'proxy-authorization': 'Basic x',
      'proxy-foo': 'x',
      'proxy-status': 'cache; hit',
      expect: '100-continue',
      host: 'vault.example.com',
      'content-length': '10',
      'svc-api-key': 'key_pvt_x',
      'bt-api-key': 'key_pvt_y',
      'svc-proxy-url': 'https://x',
      'bt-proxy-key': 'key_prx_x',
      authorization: 'Bearer destination',
      'content-type': 'application/json',
      'idempotency-key': 'abc',
    });
    expect(out).toEqual({ authorization: 'Bearer destination', 'content-type': 'application/json', 'idempotency-key': 'abc' });
  });

  it('answers with every header but hop-by-hop ones, each value of a repeated one, and no stale length after a rewrite', () => {
    const headers = { 'content-type': 'application/json', 'content-length': '12', etag: '"a"', 'set-cookie': ['a=1', 'b=2'], connection: 'close, x-hop', 'x-hop': '1', 'transfer-encoding': 'chunked', 'proxy-status': 'x', 'proxy-authenticate-info': 'y' };
    expect(answeredHeaders(headers, false)).toEqual([
      ['content-type', 'application/json'],
      ['content-length', '12'],
      ['etag', '"a"'],
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
    expect(answeredHeaders(headers, true)).toEqual([
      ['content-type', 'application/json'],
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
  });
});
