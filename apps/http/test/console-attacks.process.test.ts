import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { chromiumSuite, launchChromium, showingPage } from './console-chromium';
import { BIN, killServed, type Served, sendForJson, serveBin } from './served-bin';

/**
 * The operator console attacked, in Debian's Chromium against the built `svc serve` (console.process.test.ts drives
 * its ordinary use): markup in every name and datum an attacker can choose, framing from another origin, ids in the
 * hash that are not ids, answers the page does not expect, a server that fails while the page resumes, keys pasted
 * where they do not belong, double clicks, and what sign-out leaves behind. Then, as there: no key in a URL, in
 * storage, in a cookie or in the server's output, and no page error. One browser for the file.
 */
const STEP_MS = 30_000;
/** Markup that would run, or mark the page, if the console ever put a text where markup goes. */
const XSS = `<img src=x onerror="globalThis.__pwned=1;alert(1)">"><script>globalThis.__pwned=2</script><a href="javascript:alert(3)">x</a>`;

/** The page's globals these tests read, typed here: this project compiles without the DOM library. */
interface PageGlobals {
  readonly __pwned?: unknown;
  readonly sessionStorage: { readonly length: number; getItem(name: string): string | null };
  readonly localStorage: { readonly length: number };
  readonly document: {
    querySelectorAll(selector: string): { readonly length: number } & Iterable<{ readonly value: string }>;
    readonly body: { readonly innerHTML: string };
  };
  readonly history: { readonly state: unknown };
}

const suite = chromiumSuite('console attack tests');

suite('the console under attack, in Chromium', () => {
  let dataDir: string;
  let served: Served;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const managementKey = `key_mgt_attacks_${randomBytes(16).toString('hex')}`;
  const secrets: string[] = [managementKey];
  const requests: Request[] = [];
  const pageErrors: string[] = [];
  const dialogs: string[] = [];
  let app: { id: string; key: string };
  let tokenId = '';
  let webhookId = '';
  let proxyId = '';

  const api = (key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> =>
    sendForJson(served.url, key, method, path, body);
  const created = async (key: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await api(key, 'POST', path, body);
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** The API calls the page made since `from` (an index into `requests`), as `METHOD /path?query`. */
  const callsSince = (from: number): string[] =>
    requests
      .slice(from)
      .map((r) => ({ method: r.method(), url: new URL(r.url()) }))
      .filter(({ url }) => url.origin === served.url && !url.pathname.startsWith('/console'))
      .map(({ method, url }) => `${method} ${url.pathname}${url.search}`);
  const step = (body: () => Promise<void>) => showingPage(() => page, body);
  const go = async (hash: string): Promise<void> => {
    await page.goto(`${served.url}/console${hash}`);
  };
  const signIn = async (key: string): Promise<void> => {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Signed in as').waitFor();
  };

  beforeAll(async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-console-attacks-'));
    served = await serveBin({ SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_API_KEY: managementKey });
    // What an attacker (or a careless colleague) can name: every text the pages show.
    const rule = { description: XSS, priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:search', 'token:delete'] };
    const made = await created(managementKey, '/applications', { name: XSS, type: 'private', permissions: [], rules: [rule] });
    app = { id: String(made.id), key: String(made.key) };
    secrets.push(app.key);
    tokenId = String((await created(app.key, '/tokens', { type: 'token', data: XSS, metadata: { [`note`]: XSS }, search_indexes: ['{{ data }}'] })).id);
    const hook = await created(managementKey, '/webhooks', { name: XSS, url: `https://hooks.example.com/?q=${encodeURIComponent(XSS)}`, events: ['token.created'] });
    webhookId = String(hook.id);
    secrets.push(String(hook.secret));
    const proxy = await created(managementKey, '/proxies', {
      name: XSS,
      destination_url: 'https://api.example.com/<b>x</b>',
      request_transforms: [{ type: 'append_header', name: 'X-Note', value: XSS }],
      configuration: { NOTE: XSS },
    });
    proxyId = String(proxy.id);
    secrets.push(String(proxy.key));
    await created(managementKey, '/tenants/self/invitations', { email: '"<img src=x onerror=alert(4)>"@example.com' });

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', timezoneId: 'UTC' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (request) => requests.push(request));
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (message.type() !== 'error' && message.type() !== 'warning') return;
      // Chromium logs every refused call as a failed load; these tests cause 4xx and failures on purpose.
      if (/^Failed to load resource: (the server responded with a status of \d{3} |net::ERR_)/.test(message.text())) return;
      pageErrors.push(`console.${message.type()}: ${message.text()}`);
    });
    await go('');
    await signIn(managementKey);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    killServed();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'shows markup in names, data, metadata, rules, URLs, e-mails and problems as text: nothing runs, nothing is injected',
    step(async () => {
      const injected = async (where: string): Promise<void> => {
        // Each page shows the attacker's text somewhere; none of it became an element.
        expect({ where, pwned: await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned), elements: await page.evaluate(() => (globalThis as unknown as PageGlobals).document.querySelectorAll('main img, main script, main a[href^="javascript:"]').length) }).toEqual({
          where,
          pwned: undefined,
          elements: 0,
        });
      };
      // Each page, and the attacker's text it shows (as text).
      const visits: Array<[string, string]> = [
        ['#/applications', XSS],
        [`#/applications/${app.id}`, XSS],
        [`#/applications/${app.id}/edit`, `Edit ${XSS}`],
        ['#/members', '"<img src=x onerror=alert(4)>"@example.com'],
        ['#/logs', app.id],
        ['#/webhooks', XSS],
        [`#/webhooks/${webhookId}`, 'No deliveries yet.'],
        [`#/webhooks/${webhookId}/edit`, `Edit ${XSS}`],
        ['#/proxies', XSS],
        [`#/proxies/${proxyId}`, XSS],
        [`#/proxies/${proxyId}/edit`, `Edit ${XSS}`],
      ];
      for (const [hash, shown] of visits) {
        await go(hash);
        await page.getByText(shown).first().waitFor();
        await injected(hash);
      }

      await go('#/tokens');
      await page.getByLabel('Private key for the token pages').fill(app.key);
      await page.getByRole('button', { name: 'Use key' }).click();
      const box = page.getByRole('searchbox', { name: 'Search' });
      // The parser's message quotes the query: shown as text under the box.
      await box.fill(`${XSS}:x`);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.locator('#token-query-error').waitFor();
      expect(await page.locator('#token-query-error pre').textContent()).toContain(XSS);
      await injected('search error');
      await box.fill('');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('row').filter({ hasText: tokenId }).waitFor();
      await injected('search results');
      await page.getByRole('link', { name: tokenId }).click();
      await page.getByRole('heading', { name: `Token ${tokenId}` }).waitFor();
      expect(await page.locator('pre.data').textContent()).toBe(JSON.stringify(XSS, null, 2));
      await injected('token detail');
      expect(dialogs).toEqual([]);
    }),
    STEP_MS,
  );

  it(
    'cannot be framed by another origin: the frame stays empty, so no key can be typed into a hidden console',
    step(async () => {
      const attacker = await context.newPage();
      try {
        await attacker.route('http://attacker.test/**', (route) =>
          route.fulfill({ contentType: 'text/html', body: `<!doctype html><iframe id="f" src="${served.url}/console" width="800" height="600"></iframe>` }),
        );
        await attacker.goto('http://attacker.test/');
        await attacker.waitForLoadState('load');
        const frames = attacker.frames().filter((frame) => frame !== attacker.mainFrame());
        expect(frames.length).toBe(1);
        // Blocked by frame-ancestors 'none' (and X-Frame-Options): the frame holds Chromium's error page, not the console.
        expect(await frames[0]!.locator('#app').count()).toBe(0);
        expect(await frames[0]!.getByLabel('API key').count()).toBe(0);
      } finally {
        await attacker.close();
      }
    }),
    STEP_MS,
  );

  it(
    'refuses ids in the hash that are dot segments: the URL parser would turn /applications/.. into another endpoint, called with the key',
    step(async () => {
      for (const hash of ['#/applications/.', '#/applications/./edit', '#/applications/%2e%2e', '#/webhooks/..', '#/webhooks/./edit', '#/proxies/.', '#/tokens/..']) {
        const from = requests.length;
        await go(hash);
        await page.getByRole('alert').filter({ hasText: 'Not Found' }).waitFor();
        // No call at all: '.' and '..' are no ids, so nothing is asked of /applications/ (a list) or / .
        expect({ hash, calls: callsSince(from) }).toEqual({ hash, calls: [] });
        expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
      }
      expect(pageErrors).toEqual([]);
    }),
    STEP_MS,
  );

  it(
    'shows an answer it cannot read as a message, not a blank page, and another page renders again',
    step(async () => {
      await page.route('**/applications?*', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }));
      try {
        await go('#/members');
        await go('#/applications');
        await page.getByRole('alert').filter({ hasText: 'This page could not be shown' }).waitFor();
      } finally {
        await page.unroute('**/applications?*');
      }
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Applications' }).click();
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      await page.getByRole('link', { name: XSS }).waitFor();
      // A list the server refuses, or cannot serve, says so where the list goes.
      for (const [answer, shown] of [
        [{ status: 429, contentType: 'application/problem+json', body: JSON.stringify({ status: 429, title: 'Too Many Requests', detail: 'Wait before trying again.' }) }, 'Too Many Requests (429) Wait before trying again.'],
        [{ status: 502, contentType: 'text/html', body: '<html>bad gateway</html>' }, 'Bad Gateway (502)'],
      ] as const) {
        await page.route('**/webhooks?*', (route) => route.fulfill(answer));
        try {
          await go('#/members');
          await go('#/webhooks');
          await page.getByRole('alert').filter({ hasText: shown }).waitFor();
        } finally {
          await page.unroute('**/webhooks?*');
        }
      }
      await page.route('**/webhooks?*', (route) => route.abort('connectionrefused'));
      try {
        await go('#/members');
        await go('#/webhooks');
        await page.getByRole('alert').filter({ hasText: 'Network error' }).waitFor();
      } finally {
        await page.unroute('**/webhooks?*');
      }
      expect(pageErrors).toEqual([]);
    }),
    STEP_MS,
  );

  it(
    'creates one key for a double click on Create key (the first key would live on, never shown), and resends an invitation once',
    step(async () => {
      const keys = async (): Promise<number> => ((await api(managementKey, 'GET', `/applications/${app.id}/keys`)).body as unknown as unknown[]).length;
      const before = await keys();
      await go(`#/applications/${app.id}`);
      await page.getByRole('table', { name: 'Keys' }).waitFor();
      const from = requests.length;
      await page.getByRole('button', { name: 'Create key' }).dblclick();
      await page.getByRole('heading', { name: 'The new key' }).waitFor();
      secrets.push(await page.locator('#shown-key').inputValue());
      await page.getByRole('table', { name: 'Keys' }).locator('tbody tr').nth(before).waitFor();
      expect(callsSince(from).filter((call) => call.startsWith('POST '))).toEqual([`POST /applications/${app.id}/keys`]);
      expect(await keys()).toBe(before + 1);

      await go('#/members');
      const row = page.getByRole('row').filter({ hasText: '@example.com' });
      const resend = row.getByRole('button', { name: 'Resend' });
      await resend.waitFor();
      const sent = requests.length;
      await resend.dblclick();
      await page.getByText('Invitation resent to').waitFor();
      expect(callsSince(sent).filter((call) => call.startsWith('POST '))).toHaveLength(1);
    }),
    STEP_MS,
  );

  it(
    'refuses a key pasted into the audit log\'s entity id before any call: a key never goes into a URL',
    step(async () => {
      await go('#/logs');
      await page.locator('table.log tbody tr').first().waitFor();
      const from = requests.length;
      await page.getByLabel('Entity id').fill(` ${app.key} `);
      await page.getByRole('button', { name: 'Apply' }).click();
      const error = page.locator('#log-entity-id-error');
      await error.waitFor();
      expect(await error.textContent()).toMatch(/API key/);
      expect(await error.textContent()).not.toContain(app.key);
      expect(await page.getAttribute('#log-entity-id', 'aria-invalid')).toBe('true');
      expect(callsSince(from)).toEqual([]);
      // An id is fine again.
      await page.getByLabel('Entity id').fill(app.id);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('row').filter({ hasText: app.id }).first().waitFor();
      expect(await page.locator('#log-entity-id-error').count()).toBe(0);
    }),
    STEP_MS,
  );

  it(
    'sends no URL holding a key, whatever field it was typed in and however it is wrapped',
    step(async () => {
      await go('#/logs');
      await page.locator('table.log tbody tr').first().waitFor();
      for (const typed of [`SVC-API-KEY: ${app.key}`, `"${app.key}"`]) {
        const from = requests.length;
        await page.getByLabel('Entity id').fill(typed);
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.locator('#log-entity-id-error').waitFor();
        expect(callsSince(from)).toEqual([]);
      }
      await go('#/proxies');
      // The list has loaded (its call made and answered) before the filter is typed.
      await page.getByRole('row').filter({ hasText: 'api.example.com' }).first().waitFor();
      const from = requests.length;
      await page.locator('#proxy-name-filter').fill(managementKey);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('a key never goes into a URL').waitFor();
      expect(callsSince(from)).toEqual([]);
    }),
    STEP_MS,
  );

  it(
    "gives a script injected into the console no way out through the vault's own proxy: not loaded, not reached",
    step(async () => {
      const open = await created(managementKey, '/proxies', { name: 'exfil', destination_url: 'https://api.example.com/', require_auth: false });
      secrets.push(String(open.key));
      await go('#/applications');
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      // What injected markup would do: load a script from the proxy, and post the stored key through it.
      const outcome = await page.evaluate(async (proxyKey) => {
        const g = globalThis as unknown as {
          document: { createElement(tag: string): { src: string; onload: unknown; onerror: unknown }; body: { append(node: unknown): void } };
          fetch(url: string, init: { method: string; body: string }): Promise<{ status: number }>;
          sessionStorage: { length: number };
        };
        const script = g.document.createElement('script');
        const loaded = new Promise<string>((resolve) => {
          script.onload = () => resolve('loaded');
          script.onerror = () => resolve('refused');
        });
        script.src = `/proxy/payload.js?svc-proxy-key=${proxyKey}`;
        g.document.body.append(script);
        const sent = await g.fetch(`/proxy/steal?svc-proxy-key=${proxyKey}`, { method: 'POST', body: JSON.stringify({ stored: g.sessionStorage.length }) }).then(
          (res) => res.status,
          () => 0,
        );
        return { script: await loaded, sent };
      }, String(open.key));
      expect(outcome).toEqual({ script: 'refused', sent: 403 });
      // Chromium reports the refused script (a problem document is no script): caused here on purpose.
      const refusedScript = pageErrors.filter((e) => e.includes('/proxy/payload.js'));
      expect(refusedScript.length).toBeLessThanOrEqual(1);
      for (const e of refusedScript) pageErrors.splice(pageErrors.indexOf(e), 1);
      // The proxy's own key in those URLs is the proxy's, which this test made: it is dropped from the URL check below.
      secrets.splice(secrets.indexOf(String(open.key)), 1);
    }),
    STEP_MS,
  );

  it(
    'keeps a configuration value holding line breaks through an edit of the proxy\'s name alone',
    step(async () => {
      const pem = '-----BEGIN CERTIFICATE-----\nMIIB\r\nabc=def\n-----END CERTIFICATE-----';
      const made = await created(managementKey, '/proxies', { name: 'multi-line', destination_url: 'https://api.example.com/', configuration: { CERT: pem, K: 'a=b' } });
      secrets.push(String(made.key));
      await go(`#/proxies/${String(made.id)}/edit`);
      await page.getByLabel('Name').fill('multi-line renamed');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'multi-line renamed' }).waitFor();
      const after = await api(managementKey, 'GET', `/proxies/${String(made.id)}`);
      expect(after.body.configuration).toEqual({ CERT: pem, K: 'a=b' });
    }),
    STEP_MS,
  );

  it(
    'goes on with the new key when the signed-in application regenerates its own: every page still loads',
    step(async () => {
      const permissions = (await api(managementKey, 'GET', '/applications/key')).body.permissions as string[];
      const ops = await created(managementKey, '/applications', { name: 'ops admin', type: 'management', permissions });
      secrets.push(String(ops.key));
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      await signIn(String(ops.key));
      // The sign-in lands on the applications list first; the application's own page after it.
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      await go(`#/applications/${String(ops.id)}`);
      await page.getByRole('table', { name: 'Keys' }).waitFor();
      await page.getByRole('button', { name: 'Regenerate key' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Regenerate' }).click();
      await page.getByRole('heading', { name: 'The regenerated key' }).waitFor();
      const renewed = await page.locator('#shown-key').inputValue();
      secrets.push(renewed);
      expect((await api(String(ops.key), 'GET', '/applications/key')).status).toBe(401);
      // The keys list, and another page, load with the new key: no 401 anywhere.
      await page.getByRole('table', { name: 'Keys' }).locator('tbody tr').first().waitFor();
      await go('#/webhooks');
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByRole('row').filter({ hasText: 'hooks.example.com' }).first().waitFor();
      expect(await page.getByText('Unauthenticated (401)').count()).toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      // Back as the tests before: the management key, with the private key on the token pages.
      await signIn(managementKey);
      await go('#/tokens');
      await page.getByLabel('Private key for the token pages').fill(app.key);
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.getByRole('searchbox', { name: 'Search' }).waitFor();
    }),
    STEP_MS,
  );

  it(
    'steps back to the last page when the page shown is past the end (its last item deleted)',
    step(async () => {
      for (let i = 0; i < 20; i++) await created(app.key, '/tokens', { type: 'token', data: `paged ${i}`, metadata: { batch: 'pager' } });
      await go('#/tokens');
      const box = page.getByRole('searchbox', { name: 'Search' });
      await box.fill('metadata.batch:pager');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const pager = page.getByRole('navigation', { name: 'Result pages' });
      await pager.getByText('Page 1 of 1 · 20 items').waitFor();
      await created(app.key, '/tokens', { type: 'token', data: 'paged 20', metadata: { batch: 'pager' } });
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await pager.getByText('Page 1 of 2 · 21 items').waitFor();
      await pager.getByRole('button', { name: 'Next' }).click();
      await pager.getByText('Page 2 of 2 · 21 items').waitFor();
      // The only token of page 2, deleted from its page: the search it returns to is past the end.
      await page.locator('table.tokens tbody a').first().click();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete this token?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
      await pager.getByText('Page 1 of 1 · 20 items').waitFor();
      await page.locator('table.tokens tbody tr').nth(19).waitFor();
      expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    }),
    STEP_MS,
  );

  it(
    'keeps the key when the server cannot be reached as the page resumes (a retry signs in), and forgets it on a 401',
    step(async () => {
      for (const fail of [
        (route: Parameters<Parameters<Page['route']>[1]>[0]) => route.abort('connectionrefused'),
        (route: Parameters<Parameters<Page['route']>[1]>[0]) =>
          route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify({ status: 503, title: 'Service Unavailable', detail: 'Starting.' }) }),
      ]) {
        await page.route('**/applications/key', fail);
        try {
          await page.reload();
          await page.getByRole('button', { name: 'Try again' }).waitFor();
          expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.getItem('svc.console.key'))).toBe(managementKey);
          expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.getItem('svc.console.token-key'))).toBe(app.key);
        } finally {
          await page.unroute('**/applications/key');
        }
        await page.getByRole('button', { name: 'Try again' }).click();
        await page.getByLabel('Signed in as').waitFor();
      }
      // The token key came back too.
      await go('#/tokens');
      await page.getByText('Token pages use the key pasted here').waitFor();

      // A 401 says the key stopped working: it is forgotten.
      await page.route('**/applications/key', (route) =>
        route.fulfill({ status: 401, contentType: 'application/problem+json', body: JSON.stringify({ status: 401, title: 'Unauthenticated', detail: 'The API key is invalid or expired.' }) }),
      );
      try {
        await page.reload();
        await page.getByLabel('API key').waitFor();
        expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).toBe(0);
      } finally {
        await page.unroute('**/applications/key');
      }
      await signIn(managementKey);
    }),
    STEP_MS,
  );

  it(
    'forgets the token search on sign-out: the next sign-in in this tab neither sees nor runs it, and Back shows the sign-in',
    step(async () => {
      await go('#/tokens');
      await page.getByLabel('Private key for the token pages').fill(app.key);
      await page.getByRole('button', { name: 'Use key' }).click();
      const box = page.getByRole('searchbox', { name: 'Search' });
      await box.fill('data:"secret 4242"');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('No tokens match.').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();

      // Back: the sign-in still, and no call with any key.
      const from = requests.length;
      await page.goBack();
      await page.getByLabel('API key').waitFor();
      expect(callsSince(from)).toEqual([]);

      await signIn(app.key);
      await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
      expect(await box.inputValue()).toBe('');
      const searches = requests.slice(from).filter((r) => r.url().endsWith('/tokens/search')).map((r) => r.postData() ?? '');
      expect(searches.filter((body) => body.includes('secret 4242'))).toEqual([]);

      // A private key's sign-in: the management pages say it may not read them.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Applications' }).click();
      await page.getByRole('alert').filter({ hasText: 'Forbidden (403)' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
    }),
    STEP_MS,
  );

  it(
    'names what is wrong with a pasted key fetch cannot send (an ellipsis, a zero-width space, a header name before it), sends and stores nothing',
    step(async () => {
      for (const [key, shown] of [
        [`${managementKey.slice(0, 20)}…`, 'U+2026'],
        [`${managementKey.slice(0, 20)}\u200b${managementKey.slice(20)}`, 'U+200B'],
        [`SVC-API-KEY: ${managementKey}`, 'space'],
      ] as const) {
        const from = requests.length;
        await page.getByLabel('API key').fill(key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const error = page.locator('#sign-in-key-error');
        await error.waitFor();
        expect(await error.textContent()).toContain(shown);
        expect(await error.textContent()).not.toContain(managementKey.slice(8, 20));
        expect(await page.getByText('Network error').count()).toBe(0);
        expect(callsSince(from)).toEqual([]);
        expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).toBe(0);
      }
      await signIn(managementKey);
    }),
    STEP_MS,
  );

  it(
    'never put a key in a URL, localStorage, a cookie or the server\'s output, asked no other origin, and logged no page error',
    step(async () => {
      expect(requests.length).toBeGreaterThan(50);
      const urls = requests.map((r) => r.url());
      for (const secret of secrets) {
        expect(urls.filter((url) => url.includes(secret) || url.includes(encodeURIComponent(secret)))).toEqual([]);
        expect(served.output()).not.toContain(secret);
      }
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).localStorage.length)).toBe(0);
      expect(await context.cookies()).toEqual([]);
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).history.state)).toBeNull();
      // Signed in, the page holds no key anywhere in its markup or fields (the sign-in field is emptied).
      const shown = await page.evaluate(() => {
        const { document } = globalThis as unknown as PageGlobals;
        return [document.body.innerHTML, ...[...document.querySelectorAll('input, textarea')].map((field) => field.value)].join('\n');
      });
      for (const secret of secrets) expect(shown.includes(secret)).toBe(false);
      // No request carried a Referer, to this origin or any other (Chromium reports the one it computed: empty).
      expect(requests.filter((r) => (r.headers().referer ?? '') !== '').map((r) => r.url())).toEqual([]);
      expect(urls.filter((url) => !url.startsWith(`${served.url}/`))).toEqual([]);
      expect(dialogs).toEqual([]);
      expect(pageErrors).toEqual([]);
    }),
    STEP_MS,
  );
});
