/**
 * Which headers pass through the proxy (beyond.md §7). On the way out: every header but the hop-by-hop ones (and
 * those the Connection header names), the caller's API key, svc's own proxy headers, and what the outbound client
 * sets for itself (host, content-length). On the way back: every header but the hop-by-hop ones.
 */

/** Headers of one connection, never forwarded (RFC 9110 §7.6.1, and the older names still sent). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'expect',
  'http2-settings',
]);

/**
 * Whether a header belongs to one connection: the hop-by-hop names, and every `Proxy-*` header (addressed to a proxy,
 * which svc is: `Proxy-Authorization`, `Proxy-Status`…). Lower-case names.
 */
export const isHopByHop = (name: string): boolean => HOP_BY_HOP.has(name) || name.startsWith('proxy-');

/** Never sent on: the caller's key, svc's proxy headers, and what the outbound client computes itself. */
const NEVER_FORWARDED = new Set(['svc-api-key', 'bt-api-key', 'host', 'content-length']);

const isProxyHeader = (name: string): boolean => name.startsWith('svc-proxy-') || name.startsWith('bt-proxy-');

/** The header names the Connection header lists: hop-by-hop for this one message. */
function namedByConnection(headers: Readonly<Record<string, string>>): Set<string> {
  const value = headers.connection;
  return new Set(value === undefined ? [] : value.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean));
}

/** The request headers to send on (lower-case names, one value each as Node joins repeats). */
export function forwardedRequestHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const connection = namedByConnection(headers);
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (isHopByHop(name) || NEVER_FORWARDED.has(name) || isProxyHeader(name) || connection.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The destination's headers to answer with. `rewritten`: the body is svc's own rewrite (a mask), so the length and
 * encoding the destination stated no longer hold.
 */
export function answeredHeaders(headers: Readonly<Record<string, string | readonly string[]>>, rewritten: boolean): Array<readonly [string, string]> {
  const connection = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((n) => n.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Array<readonly [string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (isHopByHop(lower) || connection.has(lower)) continue;
    if (rewritten && (lower === 'content-length' || lower === 'content-md5' || lower === 'etag')) continue;
    for (const one of typeof value === 'string' ? [value] : value) out.push([lower, one]);
  }
  return out;
}
