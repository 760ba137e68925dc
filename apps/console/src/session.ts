/**
 * Where the console keeps its keys: this tab's sessionStorage, and nowhere else (never a URL, a cookie, localStorage
 * or a log). Closing the tab forgets them; signing out clears them at once.
 */
const KEY = 'svc.console.key';
const TOKEN_KEY = 'svc.console.token-key';

const read = (name: string): string | undefined => sessionStorage.getItem(name) ?? undefined;

export const storedKey = (): string | undefined => read(KEY);
export const storedTokenKey = (): string | undefined => read(TOKEN_KEY);

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

/** The private key the token pages use when the signed-in key cannot read tokens (a management key). */
export function storeTokenKey(key: string | undefined): void {
  if (key === undefined) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, key);
}

/** What pages keep in memory outside their components (a token search, a key to show once), forgotten with the keys. */
const forgetters: Array<() => void> = [];

/**
 * Registers a page's memory to forget on sign-out: the next person to sign in in this tab must not see, or run with
 * their key, a search the last one typed (it may hold data).
 */
export function forgetOnSignOut(forget: () => void): void {
  forgetters.push(forget);
}

/** Forgets every key and what the pages kept in memory: this tab's sessionStorage holds nothing of the console afterwards. */
export function forgetKeys(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.clear();
  for (const forget of forgetters) forget();
}

/** API keys' prefixes (an operator's SVC_BOOTSTRAP_API_KEY may have none): a text that starts so is a key, not an id. */
const KEY_PREFIXES = ['key_pvt_', 'key_pub_', 'key_mgt_', 'key_prx_', 'key_ses_'];

/** Whether `text` holds an API key anywhere (quoted, after a header name, inside a longer text). */
export const looksLikeKey = (text: string): boolean => KEY_PREFIXES.some((prefix) => text.includes(prefix));

/**
 * Why a pasted key cannot be one, before anything is sent: keys hold no whitespace, and `fetch` cannot send a header
 * holding a character past Latin-1 (it throws, which read as "the server could not be reached"). The
 * message names the character, never the key.
 */
export function keyFault(key: string): string | undefined {
  if (key === '') return 'Paste an API key.';
  for (const char of key) {
    const code = char.codePointAt(0)!;
    if (/\s/.test(char)) return 'This key holds a space: paste the key alone (no header name, no spaces).';
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code > 0xff) {
      return `This key holds the character U+${code.toString(16).toUpperCase().padStart(4, '0')}, which no key holds: paste the whole key again (a shortened one ends in …).`;
    }
  }
  return undefined;
}
