import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core through its executable path (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * `describe` where Chromium is installed; elsewhere `describe.skip`, with the reason printed (`what` names the file's
 * tests in that line).
 */
export function chromiumSuite(what: string): jest.Describe {
  if (existsSync(CHROMIUM)) return describe;
  console.warn(`${what} skipped: no Chromium at ${CHROMIUM} (Debian's chromium package; .ci/run installs it)`);
  return describe.skip;
}

/**
 * Chromium, headless, as root, on a machine with no network: without the background-networking flags it tries
 * Google's hosts at every start and its connections are refused.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A test body whose failure carries what the page showed. */
export function showingPage(page: () => Page, body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
    } catch (error) {
      const shown = await page().locator('body').innerText().catch(() => '(no page)');
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- the page showed:\n${shown}`);
    }
  };
}
