import request from 'supertest';
import { CONSOLE_CSP } from '../src/http/pages/console-page';
import { type Harness, harness } from './harness';

/** The console's files as the server serves them; the browser tests (console.process.test.ts) drive the page itself. */
describe('GET /console', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await harness();
  });

  const expectConsoleHeaders = (res: request.Response): void => {
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // frame-ancestors 'none' for browsers that predate it, and no handle for a page that opened the console.
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
  };

  it('serves the page without a key, uncached, under a CSP that allows only its own files and calls to this server', async () => {
    for (const path of ['/console', '/console/']) {
      const res = await request(h.app).get(path).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expectConsoleHeaders(res);
    }
    const directives = Object.fromEntries(CONSOLE_CSP.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives['default-src']).toEqual(["'none'"]);
    for (const name of ['script-src', 'style-src', 'connect-src']) expect(directives[name]).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['form-action']).toEqual(["'none'"]);
    expect(CONSOLE_CSP).not.toContain('unsafe');
  });

  it('holds nothing inline and nothing from another origin: every file the page loads is served here', async () => {
    const page = (await request(h.app).get('/console').expect(200)).text;
    expect(page).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(page).not.toMatch(/<style|\sstyle=|\son\w+=/i);
    expect(page).not.toMatch(/https?:\/\//);
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toEqual(['/console/console.css', 'data:,', '/console/console.js']);
    for (const [path, type] of [
      ['/console/console.css', 'text/css; charset=utf-8'],
      ['/console/console.js', 'text/javascript; charset=utf-8'],
    ] as const) {
      const res = await request(h.app).get(path).expect(200);
      expect({ path, type: res.headers['content-type'], cache: res.headers['cache-control'] }).toEqual({ path, type, cache: 'no-cache' });
      expectConsoleHeaders(res);
      // The bundle names no other origin: its only absolute URLs are the XML namespaces Preact creates elements in.
      expect(res.text.replace(/http:\/\/www\.w3\.org\/[\w/.]+/g, '')).not.toMatch(/https?:\/\/[\w-]/i);
    }
  });

  it('answers any other path under /console as a 404 problem, with the same headers, and other methods with a 405', async () => {
    for (const path of ['/console/index.html', '/console/console.js.map', '/console/package.json', '/console/..%2Fpackage.json', '/console/applications']) {
      const res = await request(h.app).get(path);
      expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({ path, status: 404, type: 'application/problem+json; charset=utf-8' });
      expectConsoleHeaders(res);
    }
    const post = await request(h.app).post('/console').send({});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    // The files answer other methods as the page does: a 405 naming GET and HEAD, under the same headers.
    for (const [method, path] of [
      ['post', '/console/console.js'],
      ['put', '/console/console.css'],
      ['delete', '/console/console.js'],
      ['patch', '/console/console.css'],
    ] as const) {
      const res = await request(h.app)[method](path);
      expect({ method, path, status: res.status, allow: res.headers.allow, type: res.headers['content-type'] }).toEqual({
        method,
        path,
        status: 405,
        allow: 'GET, HEAD',
        type: 'application/problem+json; charset=utf-8',
      });
      expect(res.body).toMatchObject({ status: 405, detail: 'This resource answers GET, HEAD.' });
      expectConsoleHeaders(res);
    }
    // HEAD answers a file's headers without its body.
    const head = await request(h.app).head('/console/console.js').expect(200);
    expect(head.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expectConsoleHeaders(head);
  });

  it('answers revalidations, ranges and traversal attempts under the same headers, never with a file outside the three', async () => {
    // Encoded dots and slashes, backslashes, double encoding, a NUL, a trailing slash, a case change, a very long path.
    for (const path of [
      '/console/%2e%2e/package.json',
      '/console/%2e%2e%2fpackage.json',
      '/console/..%5cpackage.json',
      '/console/%252e%252e%252fpackage.json',
      '/console/console.js%00',
      '/console/console.js/',
      '/console/Console.js',
      '/console/%63onsole.js',
      '/console/constructor',
      '/console/__proto__',
      `/console/${'a'.repeat(4000)}`,
    ]) {
      const res = await request(h.app).get(path);
      expect({ path: path.slice(0, 60), status: res.status }).toEqual({ path: path.slice(0, 60), status: 404 });
      expectConsoleHeaders(res);
    }
    // A range is answered with the whole file; a conditional request's 304 carries the headers too.
    const ranged = await request(h.app).get('/console/console.css').set('Range', 'bytes=0-9').expect(200);
    expectConsoleHeaders(ranged);
    const conditional = await request(h.app).get('/console/console.css').set('If-None-Match', '*');
    expect([200, 304]).toContain(conditional.status);
    expectConsoleHeaders(conditional);
  });
});
