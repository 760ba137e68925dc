import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CONSOLE_CSP } from '../src/http/pages/console-page';
import { BIN, killServed, type Served, sendForJson, serveBin } from './served-bin';

/**
 * The console in Firefox (Debian's firefox-esr, driven by puppeteer-core over WebDriver BiDi: no browser download)
 * against the built `svc serve`: sign in, every section's page, a token found by search with a private key beside
 * the management key, the audit log, sign-out. The full scenario runs in Chromium (console.process.test.ts); this
 * one holds the page to working in the other engine, with no page error and no key left behind.
 */
const FIREFOX = '/usr/bin/firefox-esr';

/** The page's globals read here: this project compiles without the DOM library. */
interface PageGlobals {
  readonly sessionStorage: { readonly length: number };
  readonly localStorage: { readonly length: number };
  readonly document: { readonly body: { readonly innerText: string }; readonly cookie: string };
}

const available = existsSync(FIREFOX);
if (!available) console.warn(`console Firefox test skipped: no Firefox at ${FIREFOX} (Debian's firefox-esr package; .ci/run installs it)`);
const suite = available ? describe : describe.skip;

suite('the console in Firefox', () => {
  let dataDir: string;
  let served: Served;
  let browser: Browser;
  let page: Page;
  const managementKey = `key_mgt_firefox_${randomBytes(16).toString('hex')}`;
  const pageErrors: string[] = [];
  const urls: string[] = [];
  let privateKey = '';
  let tokenId = '';

  const api = async (key: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await sendForJson(served.url, key, method, path, body);
    expect(res.status).toBeLessThan(300);
    return res.body;
  };
  const text = (): Promise<string> => page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);
  /** Waits until the page shows `wanted` (the page renders after its API calls answer). */
  const shows = async (wanted: string): Promise<void> => {
    await page.waitForFunction((w: string) => (globalThis as unknown as PageGlobals).document.body.innerText.includes(w), { timeout: 10_000 }, wanted);
  };
  /** Clicks the first element matching `selector` whose text is `label`. */
  const click = async (selector: string, label: string): Promise<void> => {
    const handles = await page.$$(selector);
    for (const handle of handles) {
      if ((await handle.evaluate((e) => (e as unknown as { textContent: string }).textContent.trim())) === label) {
        await handle.click();
        return;
      }
    }
    throw new Error(`no ${selector} reading "${label}" on the page:\n${await text()}`);
  };

  beforeAll(async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-console-ff-'));
    served = await serveBin({ SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_API_KEY: managementKey });
    browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${String(error)}`));
    page.on('request', (request) => urls.push(request.url()));
    page.on('console', (message) => {
      // Firefox does not log failed loads to the page's console; anything the page itself reports as an error counts.
      if (message.type() === 'error') pageErrors.push(`console.error: ${message.text()}`);
    });
    const app = await api(managementKey, 'POST', '/applications', {
      name: 'Firefox reader',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:search'],
    });
    privateKey = app['key'] as string;
    tokenId = (await api(privateKey, 'POST', '/tokens', { type: 'token', data: 'firefox-secret', metadata: { browser: 'firefox' } }))['id'] as string;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    killServed();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs in with a management key under the CSP and names its application and tenant', async () => {
    const res = await page.goto(`${served.url}/console`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toBe(CONSOLE_CSP);
    await page.waitForSelector('#sign-in-key');
    await page.type('#sign-in-key', managementKey);
    await page.keyboard.press('Enter');
    await shows('Default management');
    await shows('Firefox reader');
    expect(await text()).toContain('Tenant Default');
  }, 30_000);

  it('opens every section from the navigation', async () => {
    for (const [section, heading] of [
      ['Tokens', 'Tokens'],
      ['Members', 'Members'],
      ['Audit log', 'Audit log'],
      ['Webhooks', 'Webhooks'],
      ['Proxies', 'Proxies'],
      ['Applications', 'Applications'],
    ] as const) {
      await click('nav[aria-label="Sections"] a', section);
      await page.waitForFunction((h: string) => {
        const doc = globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } };
        return doc.document.querySelector('main h1')?.textContent === h;
      }, { timeout: 10_000 }, heading);
    }
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('finds the token by search with a private key, and shows its create in the audit log', async () => {
    await click('nav[aria-label="Sections"] a', 'Tokens');
    // A management key cannot read tokens: the page asks for a private key to use beside it.
    await page.waitForSelector('#token-key');
    await page.type('#token-key', privateKey);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#token-query');
    await page.click('#token-query', { count: 3 });
    await page.type('#token-query', 'metadata.browser:firefox');
    await page.keyboard.press('Enter');
    await shows(tokenId);
    await click('nav[aria-label="Sections"] a', 'Audit log');
    await shows(tokenId);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('signs out leaving nothing in storage, and no key went into a URL or a cookie', async () => {
    await click('button', 'Sign out');
    await page.waitForSelector('#sign-in-key');
    const left = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      return { session: g.sessionStorage.length, local: g.localStorage.length, cookie: g.document.cookie };
    });
    expect(left).toEqual({ session: 0, local: 0, cookie: '' });
    for (const url of urls) {
      expect(url).not.toContain(managementKey);
      expect(url).not.toContain(privateKey);
    }
    expect(pageErrors).toEqual([]);
  }, 30_000);
});
