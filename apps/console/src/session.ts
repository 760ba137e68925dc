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

/** Forgets every key: this tab's sessionStorage holds nothing of the console afterwards. */
export function forgetKeys(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.clear();
}
