import { looksLikeKey } from './session';

/**
 * The console's only way to the vault: the public API on this page's own origin, with the key in `SVC-API-KEY`.
 * No cookie is sent (`credentials: 'omit'`), no referrer, nothing cached; the key never goes into a URL.
 */

/** An RFC 9457 problem as the API answers every error (see apps/http/src/http/problem.ts). */
export interface Problem {
  readonly type?: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly errors?: Readonly<Record<string, readonly string[]>>;
  readonly trace_id?: string;
}

/** A refused or failed call: its problem document, or one made up for a network failure or a non-problem answer. */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
  }

  get status(): number {
    return this.problem.status;
  }
}

/** The list envelope of the page-numbered lists. */
export interface Page<T> {
  readonly pagination: { readonly total_items: number; readonly page_number: number; readonly page_size: number; readonly total_pages: number };
  readonly data: readonly T[];
}

/**
 * Whether a path (with its query) carries a key: one with a key's prefix, or the key in use (an operator's
 * SVC_BOOTSTRAP_API_KEY may have no prefix), as typed or percent-encoded. Every filter and id a person types goes
 * into a URL, which proxies and access logs in front of the vault record.
 */
function carriesKey(path: string, key: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path.replace(/\+/g, ' '));
  } catch {
    // A malformed escape: the raw path is checked alone.
  }
  return [path, decoded].some((text) => looksLikeKey(text) || (key.length >= 16 && text.includes(key)));
}

/** Calls the API with `key`; resolves with the JSON answer (undefined for a 204), rejects with an ApiError. */
export async function call<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
  if (carriesKey(path, key)) {
    throw new ApiError({ title: 'Not sent', status: 0, detail: 'What you typed holds an API key: a key never goes into a URL. Filter by an id or a name instead.' });
  }
  const headers: Record<string, string> = { 'SVC-API-KEY': key, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
      redirect: 'error',
    });
  } catch {
    throw new ApiError({ title: 'Network error', status: 0, detail: 'The server could not be reached.' });
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) throw new ApiError(asProblem(parsed, res));
  return parsed as T;
}

function asProblem(parsed: unknown, res: Response): Problem {
  if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Problem).title === 'string') {
    return { ...(parsed as Problem), status: res.status };
  }
  return { title: res.statusText || `HTTP ${res.status}`, status: res.status };
}

/** Any thrown value as a problem to show. */
export function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) return error.problem;
  return { title: 'Unexpected error', status: 0, detail: error instanceof Error ? error.message : String(error) };
}

/** A query string from the given parameters, skipping empty ones. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A path segment from an id typed, read from the route or from an answer. `.` and `..` are no ids: encoded, they stay
 * dot segments, which the URL parser resolves (`/applications/..` is `/`, `/webhooks/../deliveries` is `/deliveries`),
 * so a crafted link (`#/applications/.`) would call another endpoint with the key and show its answer as an object.
 */
export function seg(id: string): string {
  if (id === '' || id === '.' || id === '..') throw new ApiError({ title: 'Not Found', status: 404, detail: `'${id}' is not an id.` });
  return encodeURIComponent(id);
}
