import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CONSOLE_CSP } from '../src/http/pages/console-page';
import { chromiumSuite, launchChromium, showingPage } from './console-chromium';
import { BIN, killServed, type Served, sendForJson, serveBin } from './served-bin';

/**
 * The operator console in a real browser (Debian's Chromium through playwright-core) against the built `svc serve`:
 * the scenario end to end, then what must never have happened: a key in a URL, in localStorage, in a cookie
 * or in the server's output, and any error or CSP violation in the page. Screenshots for the README go to
 * docs/console/ with SVC_SCREENSHOTS=1 (`SVC_SCREENSHOTS=1 npx jest test/console.process.test.ts`), else to a
 * temporary directory removed afterwards. One browser for the file; each step waits for what the page shows, never for a fixed time.
 */
const ROOT = join(__dirname, '..', '..', '..');
/**
 * Screenshots are always taken (the capture path runs in every `npm test`), but they land in docs/console/ only with
 * SVC_SCREENSHOTS=1: ids and times differ on every run, and a test run must leave the tree as it found it.
 */
const KEEP_SHOTS = process.env.SVC_SCREENSHOTS === '1';
const STEP_MS = 30_000;

/** The page's globals these tests read, typed here: this project compiles without the DOM library. */
interface PageGlobals {
  readonly sessionStorage: { readonly length: number; getItem(name: string): string | null };
  readonly localStorage: { readonly length: number };
  readonly navigator: { readonly clipboard: { readText(): Promise<string> } };
  readonly document: { readonly activeElement: { readonly textContent: string | null } | null };
}

const suite = chromiumSuite('console browser tests');

suite('the console in Chromium', () => {
  let dataDir: string;
  let shots: string;
  let served: Served;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const managementKey = `key_mgt_console_${randomBytes(16).toString('hex')}`;
  /** Every key and secret the run saw: none may show up where the last test looks. */
  const secrets: string[] = [managementKey];
  const urls: string[] = [];
  const pageErrors: string[] = [];
  let appId = '';
  let privateKey = '';
  let tokenId = '';

  const api = (key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> =>
    sendForJson(served.url, key, method, path, body);
  const shot = async (name: string, options: { mask?: ReturnType<Page['locator']>[] } = {}): Promise<void> => {
    await page.screenshot({ path: join(shots, `${name}.png`), mask: options.mask, animations: 'disabled', caret: 'hide' });
  };
  /** A step's failure carries what the page showed. */
  const step = (body: () => Promise<void>) => showingPage(() => page, body);
  const nav = async (label: string): Promise<void> => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label }).click();
  };

  beforeAll(async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-console-'));
    shots = KEEP_SHOTS ? join(ROOT, 'docs', 'console') : mkdtempSync(join(tmpdir(), 'svc-console-shots-'));
    mkdirSync(shots, { recursive: true });
    // No SVC_SMTP_URL: invitation e-mails go to the data directory's outbox, which the invite step reads.
    served = await serveBin({ SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_API_KEY: managementKey });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', timezoneId: 'UTC' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (request) => urls.push(request.url()));
    page.on('framenavigated', (frame) => urls.push(frame.url()));
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() !== 'error' && message.type() !== 'warning') return;
      // Chromium logs every 4xx as a failed load: the steps cause 400s and 401s on purpose, and a private key's
      // GET /applications/key is a 403 (it may not read its application).
      if (/^Failed to load resource: the server responded with a status of 40[013] /.test(message.text())) return;
      pageErrors.push(`console.${message.type()}: ${message.text()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    killServed();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (shots && !KEEP_SHOTS) rmSync(shots, { recursive: true, force: true });
  });

  it(
    'serves the page under its CSP and signs in with a management key, naming its application and tenant',
    step(async () => {
      const res = await page.goto(`${served.url}/console`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res?.headers()['cache-control']).toBe('no-store');

      await shot('sign-in');
      // A key that does not work is refused under the field, and nothing is stored.
      await page.getByLabel('API key').fill('key_mgt_not_a_real_key_0123456789');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#sign-in-key-error').waitFor();
      expect(await page.getAttribute('#sign-in-key', 'aria-invalid')).toBe('true');
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).toBe(0);

      // By keyboard: Enter in the field submits the form.
      await page.getByLabel('API key').fill(managementKey);
      await page.getByLabel('API key').press('Enter');
      const who = page.getByLabel('Signed in as');
      await who.getByText('management', { exact: true }).waitFor();
      const self = await api(managementKey, 'GET', '/tenants/self');
      const mine = await api(managementKey, 'GET', '/applications/key');
      expect(await who.textContent()).toContain(String(mine.body.name));
      expect(await who.textContent()).toContain(String(self.body.name));
      expect(await who.textContent()).toContain(String(self.body.id));
      expect(new URL(page.url()).hash).toBe('#/applications');
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.getItem('svc.console.key'))).toBe(managementKey);
    }),
    STEP_MS,
  );

  it(
    'creates a private application with two rules (the API\'s refusal shown under the rule field it names) and copies its key, shown once',
    step(async () => {
      await page.getByRole('link', { name: 'New application' }).click();
      await page.getByRole('heading', { name: 'New application' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Checkout backend');
      await page.getByLabel('Type', { exact: true }).selectOption('private');
      // The permission choices come from GET /permissions?application_type=private.
      await page.getByRole('checkbox', { name: /token:intent:create/ }).waitFor();
      await page.getByRole('button', { name: 'Add rule' }).click();
      await page.getByRole('button', { name: 'Add rule' }).click();
      const rule = (i: number) => page.getByRole('group', { name: `Rule ${i + 1}`, exact: true });
      await rule(0).getByLabel('Description').fill('Cards in the clear');
      await rule(0).getByLabel('Container').fill('/pci/');
      await rule(0).getByLabel('Transform').selectOption('reveal');
      await rule(1).getByLabel('Description').fill('Everything else masked');
      await rule(1).getByLabel('Container').fill('/');
      await rule(1).getByLabel('Transform').selectOption('mask');
      for (const i of [0, 1]) {
        for (const permission of ['token:create', 'token:read', 'token:search']) await rule(i).getByRole('checkbox', { name: permission, exact: true }).check();
      }
      await page.getByRole('group', { name: 'Access rules' }).evaluate((rules) => rules.scrollIntoView({ block: 'start' }));
      await shot('application-create');

      await rule(1).getByLabel('Container').fill('');
      await page.getByRole('button', { name: 'Create application' }).click();
      // rules[1].container: the API's message, under that rule's container field.
      const containerError = page.locator('#rule-1-container-error');
      await containerError.waitFor();
      expect(await containerError.textContent()).toMatch(/container/i);
      expect(await page.getAttribute('#rule-1-container', 'aria-invalid')).toBe('true');
      expect((await api(managementKey, 'GET', '/applications?type=private')).body.data).toEqual([]);

      await rule(1).getByLabel('Container').fill('/');
      await page.getByRole('button', { name: 'Create application' }).click();
      await page.getByRole('heading', { name: 'Checkout backend', level: 1 }).waitFor();
      appId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);

      const shown = page.locator('#shown-key');
      privateKey = await shown.inputValue();
      expect(privateKey).toMatch(/^key_pvt_/);
      secrets.push(privateKey);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText())).toBe(privateKey);
      await shot('application-detail', { mask: [shown] });

      const created = await api(managementKey, 'GET', `/applications/${appId}`);
      expect(created.body).toMatchObject({
        type: 'private',
        rules: [
          { priority: 1, description: 'Cards in the clear', container: '/pci/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:search'] },
          { priority: 2, description: 'Everything else masked', container: '/', transform: 'mask', permissions: ['token:create', 'token:read', 'token:search'] },
        ],
      });

      // Shown once: the page opened again has no key to show.
      await nav('Applications');
      await page.getByRole('link', { name: 'Checkout backend' }).click();
      await page.getByRole('heading', { name: 'Keys' }).waitFor();
      expect(await page.locator('#shown-key').count()).toBe(0);
      await nav('Applications');
      await page.getByLabel('Type').selectOption('private');
      await page.getByRole('cell', { name: 'Checkout backend' }).waitFor();
      await page.getByLabel('Type').selectOption('');
      await page.getByRole('cell', { name: 'Checkout backend' }).waitFor();
      await shot('applications');
    }),
    STEP_MS,
  );

  it(
    'finds a token the copied key created through the API in the token search, its data as the key\'s rules give it',
    step(async () => {
      const card = await api(privateKey, 'POST', '/tokens', { type: 'card_number', data: '4242424242424242', containers: ['/pci/high/'], metadata: { order: 'A-1' } });
      expect(card.status).toBe(201);
      tokenId = String(card.body.id);
      const note = await api(privateKey, 'POST', '/tokens', { type: 'token', data: 'a note', containers: ['/general/'], metadata: { order: 'A-1' } });
      expect(note.status).toBe(201);

      await nav('Tokens');
      // A management key reads no tokens: the page asks for a private key, kept beside it in sessionStorage.
      await page.getByLabel('Private key for the token pages').fill(privateKey);
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.getByText('Token pages use the key pasted here').waitFor();

      const box = page.getByRole('searchbox', { name: 'Search' });
      await box.fill('metadata.order:A-1 AND colour:red');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const error = page.locator('#token-query-error');
      await error.waitFor();
      expect(await error.textContent()).toContain("Unknown field 'colour' at position 23");
      expect(await page.locator('#token-query-error pre').textContent()).toBe(`metadata.order:A-1 AND colour:red\n${' '.repeat(23)}^`);
      expect(await box.evaluate((input) => (input as unknown as { selectionStart: number }).selectionStart)).toBe(23);

      await box.fill('metadata.order:A-1');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const row = page.getByRole('row').filter({ hasText: tokenId });
      await row.waitFor();
      // Rule 1 reveals /pci/; rule 2 masks the rest.
      expect(await row.textContent()).toContain('"4242424242424242"');
      expect(await page.getByRole('row').filter({ hasText: 'a note' }).count()).toBe(0);
      expect(await page.getByText('2 items').count()).toBe(1);
      await shot('tokens');

      await row.getByRole('link').click();
      await page.getByRole('heading', { name: `Token ${tokenId}` }).waitFor();
      expect(await page.locator('pre.data').textContent()).toBe('"4242424242424242"');
    }),
    STEP_MS,
  );

  it(
    'shows the create in the audit log, newest first, filtered by entity type and id',
    step(async () => {
      await nav('Audit log');
      await page.getByRole('row').nth(1).waitFor();
      await page.getByLabel('Entity type').selectOption('token');
      await page.getByLabel('Entity id').fill(tokenId);
      await page.getByRole('button', { name: 'Apply' }).click();
      const create = page.getByRole('row').filter({ hasText: tokenId }).filter({ hasText: 'create' });
      await create.waitFor();
      expect(await create.textContent()).toContain('success');
      expect(await create.textContent()).toContain(appId);
      const shown = await page.locator('table.log tbody tr td:first-child').allTextContents();
      expect(shown).toEqual([...shown].sort().reverse());

      // A refused filter is shown under its field.
      await page.getByLabel('Entity id').fill('x'.repeat(401));
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.locator('#log-entity-id-error').waitFor();

      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('row').filter({ hasText: 'application' }).first().waitFor();
      await shot('audit-log');
    }),
    STEP_MS,
  );

  it(
    'invites a member by e-mail, and lists the invitation',
    step(async () => {
      await nav('Members');
      await page.getByRole('cell', { name: 'OWNER', exact: true }).waitFor();
      await page.getByLabel('E-mail').fill('not an address');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.locator('#invite-email-error').waitFor();
      await page.getByLabel('E-mail').fill('ada@example.com');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.getByText('Invitation sent to ada@example.com.').waitFor();
      const invitation = page.getByRole('row').filter({ hasText: 'ada@example.com' });
      await invitation.waitFor();
      expect(await invitation.textContent()).toContain('PENDING');
      expect(readdirSync(join(dataDir, 'outbox')).length).toBe(1);
      const listed = await api(managementKey, 'GET', '/tenants/self/invitations');
      expect((listed.body.data as Array<{ email: string }>).map((i) => i.email)).toEqual(['ada@example.com']);
      await shot('members');
    }),
    STEP_MS,
  );

  it(
    'adds a key, revokes the first one, whose requests then fail with 401 while the new one works',
    step(async () => {
      await nav('Applications');
      await page.getByRole('link', { name: 'Checkout backend' }).click();
      const keyRows = page.getByRole('table', { name: 'Keys' }).locator('tbody tr');
      await keyRows.first().waitFor();
      const firstKeyId = (await keyRows.first().locator('td').first().textContent())!;
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('heading', { name: 'The new key' }).waitFor();
      const secondKey = await page.locator('#shown-key').inputValue();
      secrets.push(secondKey);
      await waitForRows(keyRows, 2);

      await keyRows.filter({ hasText: firstKeyId }).getByRole('button', { name: 'Revoke' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
      await dialog.waitFor();
      // The dialog opens on Cancel: Enter alone revokes nothing.
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.textContent)).toBe('Cancel');
      await dialog.getByRole('button', { name: 'Revoke' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await waitForRows(keyRows, 1);

      expect((await api(privateKey, 'GET', '/applications/key')).status).toBe(401);
      expect((await api(privateKey, 'POST', '/tokens/search', { query: '' })).status).toBe(401);
      expect((await api(secondKey, 'POST', '/tokens/search', { query: '' })).status).toBe(200);

      // The token pages, still on the revoked key, show the API's refusal.
      await nav('Tokens');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Unauthenticated (401)' }).waitFor();

      // Escape closes a dialog without doing anything.
      await nav('Applications');
      await page.getByRole('link', { name: 'Checkout backend' }).click();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete Checkout backend?' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Delete Checkout backend?' }).waitFor({ state: 'hidden' });
      expect((await api(managementKey, 'GET', `/applications/${appId}`)).status).toBe(200);
    }),
    STEP_MS,
  );

  it(
    'creates a webhook and a proxy, each secret shown once, and lists them',
    step(async () => {
      await nav('Webhooks');
      await page.getByText('No webhooks.').waitFor();
      await page.getByRole('link', { name: 'New webhook' }).click();
      await page.getByRole('heading', { name: 'New webhook' }).waitFor();
      await page.getByLabel('Name').fill('Ledger');
      await page.getByLabel('URL').fill('ftp://hooks.example.com/svc');
      await page.getByRole('checkbox', { name: 'token.created' }).check();
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.locator('#hook-url-error').waitFor();
      await page.getByLabel('URL').fill('https://hooks.example.com/svc');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.getByRole('heading', { name: 'Ledger', level: 1 }).waitFor();
      secrets.push(await page.locator('#shown-secret').inputValue());
      await page.getByText('No deliveries yet.').waitFor();
      await page.getByRole('link', { name: 'Edit' }).click();
      await page.getByRole('heading', { name: 'Edit Ledger' }).waitFor();
      await page.getByLabel('Status').selectOption('disabled');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Ledger', level: 1 }).waitFor();
      await page.getByText('disabled').first().waitFor();
      await nav('Webhooks');
      await page.getByRole('cell', { name: 'Ledger' }).waitFor();
      await shot('webhooks');

      await nav('Proxies');
      await page.getByText('No proxies.').waitFor();
      await page.getByRole('link', { name: 'New proxy' }).click();
      await page.getByRole('heading', { name: 'New proxy' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Card processor');
      await page.getByLabel('Destination URL').fill('https://api.processor.example/charges');
      await page.getByLabel('Application').selectOption({ label: 'Checkout backend' });
      await page.getByRole('button', { name: 'Create proxy' }).click();
      await page.getByRole('heading', { name: 'Card processor', level: 1 }).waitFor();
      const proxyKey = await page.locator('#shown-proxy-key').inputValue();
      secrets.push(proxyKey);
      await nav('Proxies');
      await page.getByRole('cell', { name: 'Card processor' }).waitFor();
      await shot('proxies');
      const proxies = await api(managementKey, 'GET', '/proxies');
      expect((proxies.body.data as Array<{ application_id: string }>)[0]!.application_id).toBe(appId);
    }),
    STEP_MS,
  );

  it(
    'edits an application (PUT) and pages through the audit log',
    step(async () => {
      await nav('Applications');
      await page.getByRole('link', { name: 'Checkout backend' }).click();
      await page.getByRole('link', { name: 'Edit' }).click();
      await page.getByRole('heading', { name: 'Edit Checkout backend' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Checkout service');
      await page.getByRole('group', { name: 'Rule 2', exact: true }).getByRole('checkbox', { name: 'token:create', exact: true }).uncheck();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Checkout service', level: 1 }).waitFor();
      const edited = await api(managementKey, 'GET', `/applications/${appId}`);
      expect(edited.body.name).toBe('Checkout service');
      expect((edited.body.rules as Array<{ permissions: string[] }>)[1]!.permissions).toEqual(['token:read', 'token:search']);

      await nav('Audit log');
      const pager = page.getByRole('navigation', { name: 'Event pages' });
      await pager.getByText(/^Page 1 of [2-9]/).waitFor();
      const first = await page.locator('table.log tbody tr').first().textContent();
      await pager.getByRole('button', { name: 'Next' }).click();
      await pager.getByText(/^Page 2 of/).waitFor();
      expect(await page.locator('table.log tbody tr').first().textContent()).not.toBe(first);
      await pager.getByRole('button', { name: 'Previous' }).click();
      await pager.getByText(/^Page 1 of/).waitFor();
    }),
    STEP_MS,
  );

  it(
    'signs out, which empties sessionStorage; a reload asks for a key again',
    step(async () => {
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).toBe(2);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).toBe(0);
      await page.reload();
      await page.getByLabel('API key').waitFor();
      expect(await page.getByLabel('Signed in as').count()).toBe(0);
    }),
    STEP_MS,
  );

  it(
    'never put a key in a URL, localStorage, a cookie or the server\'s output, and the page logged no error or CSP violation',
    step(async () => {
      expect(secrets.length).toBe(5);
      expect(urls.length).toBeGreaterThan(20);
      for (const secret of secrets) {
        expect(urls.filter((url) => url.includes(secret) || url.includes(encodeURIComponent(secret)))).toEqual([]);
        expect(served.output()).not.toContain(secret);
      }
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).localStorage.length)).toBe(0);
      expect(await context.cookies()).toEqual([]);
      // Every request went to the server itself.
      expect(urls.filter((url) => !url.startsWith(`${served.url}/`) && url !== 'about:blank' && !url.startsWith('data:'))).toEqual([]);
      expect(pageErrors).toEqual([]);
      // Every screenshot was taken, wherever it went.
      expect(readdirSync(shots).filter((name) => name.endsWith('.png')).sort()).toEqual(
        ['application-create', 'application-detail', 'applications', 'audit-log', 'members', 'proxies', 'sign-in', 'tokens', 'webhooks'].map((name) => `${name}.png`),
      );
    }),
    STEP_MS,
  );
});

/** Waits until `rows` holds `count` rows. */
async function waitForRows(rows: ReturnType<Page['locator']>, count: number): Promise<void> {
  await rows.nth(count - 1).waitFor();
  await rows.nth(count).waitFor({ state: 'detached' });
}
