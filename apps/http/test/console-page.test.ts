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
    expect((await request(h.app).delete('/console/console.js')).status).toBe(404);
  });
});
