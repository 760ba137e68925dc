/**
 * SVC_OUTBOUND_ALLOW: comma-separated `host[:port]` patterns (`127.0.0.1:8443`, `hooks.internal`, `*.corp.example`,
 * `[::1]:9000`) naming destinations exempt from the address checks and allowed over plain `http`. Meant for tests and
 * private deployments; every entry is a hole in the SSRF defence, so entries are exact, never ranges.
 */
export interface OutboundAllowPattern {
  /** Lower case, no brackets, no trailing dot. `*.example.com` matches any name below example.com, not the apex. */
  readonly host: string;
  /** Undefined: any port. */
  readonly port?: number | undefined;
}

/** An SVC_OUTBOUND_ALLOW entry that is not `host[:port]`; the message quotes it. */
export class OutboundAllowListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundAllowListError';
  }
}

/** Normalizes a host the way `new URL()` does, so `0x7f.1` in a pattern matches a URL written `127.0.0.1`. */
function normalizeHost(host: string): string | undefined {
  try {
    const hostname = new URL(`http://${host}/`).hostname;
    return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

function parseEntry(entry: string): OutboundAllowPattern {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
  const bad = () => new OutboundAllowListError(`must be a comma-separated list of host[:port] patterns such as 127.0.0.1:8443 or *.example.com, got '${entry}'`);
  if (!match) throw bad();
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65535)) throw bad();
  const wildcard = match[1]!.startsWith('*.');
  const host = normalizeHost(wildcard ? match[1]!.slice(2) : match[1]!);
  if (!host || host.includes('*')) throw bad();
  return { host: wildcard ? `*.${host}` : host, port };
}

/** Parses SVC_OUTBOUND_ALLOW; empty or unset is no exemption at all. */
export function parseOutboundAllowList(raw: string | undefined): readonly OutboundAllowPattern[] {
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map(parseEntry);
}

/** Whether `host` (as `new URL().hostname` gives it, brackets allowed) on `port` matches one of the patterns. */
export function isAllowListed(patterns: readonly OutboundAllowPattern[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return patterns.some((p) => {
    if (p.port !== undefined && p.port !== port) return false;
    if (p.host.startsWith('*.')) return name.endsWith(p.host.slice(1)) && name.length > p.host.length - 1;
    return name === p.host;
  });
}
