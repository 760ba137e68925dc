import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The operator console's policy: its own script and stylesheet, calls to this server only, nothing inline and nothing
 * from another origin (no CDN). `img-src data:` is for the page's empty favicon. A script injected into the page
 * (through a name an attacker chose, say) would not run, and could send nothing elsewhere if it did.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The headers of every answer under /console, the page, its files and the 404s among them. `X-Frame-Options` says
 * what `frame-ancestors 'none'` says for browsers that predate it (a framed console is a key-paste clickjacking
 * target); `Cross-Origin-Opener-Policy` leaves a page that opened the console in a new window no handle on it.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** The files @svc/console's build writes, by the path the page loads them from, with their types. */
export const CONSOLE_FILES = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/console.js': { file: 'console.js', type: 'text/javascript; charset=utf-8' },
  '/console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
} as const;

export type ConsolePath = keyof typeof CONSOLE_FILES;

/** A console file, read once from where @svc/console is installed; undefined when the console was not built. */
export interface ConsoleFile {
  readonly body: Buffer;
  readonly type: string;
}

const cache = new Map<ConsolePath, ConsoleFile | undefined>();

export function consoleFile(path: ConsolePath): ConsoleFile | undefined {
  if (!cache.has(path)) cache.set(path, readConsoleFile(path));
  return cache.get(path);
}

function readConsoleFile(path: ConsolePath): ConsoleFile | undefined {
  const { file, type } = CONSOLE_FILES[path];
  try {
    const dist = join(dirname(require.resolve('@svc/console/package.json')), 'dist');
    return { body: readFileSync(join(dist, file)), type };
  } catch {
    return undefined;
  }
}
