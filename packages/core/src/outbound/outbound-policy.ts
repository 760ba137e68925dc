import { type AddressClass, classifyAddress } from './ip-address';
import { type OutboundAllowPattern, isAllowListed, parseOutboundAllowList } from './outbound-allow-list';

/** A destination that passed the URL checks: where to connect and whether SVC_OUTBOUND_ALLOW lists it. */
export interface OutboundTarget {
  readonly url: URL;
  /** As `new URL().hostname` gives it, without brackets. */
  readonly host: string;
  readonly port: number;
  readonly allowListed: boolean;
}

export type OutboundDecision<T> = { readonly allowed: true; readonly value: T } | { readonly allowed: false; readonly reason: string };

const DESCRIPTIONS: Readonly<Record<Exclude<AddressClass, 'public'>, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  shared: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Names of the local host (RFC 6761 §6.3, and the loopback names of common hosts files): refused without a lookup. */
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/** Names of cloud metadata services (Google Cloud's, AWS's): refused without a lookup, whatever they resolve to. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Why a host name is refused before any lookup, or undefined. `host` as `new URL().hostname` gives it. */
function refusedName(host: string): string | undefined {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (LOCAL_NAMES.has(name) || name.endsWith('.localhost')) return 'names the local host, which outbound requests may not reach';
  if (METADATA_NAMES.has(name)) return 'names a cloud metadata service, which outbound requests may not reach';
  return undefined;
}

/**
 * The SSRF rules for every request svc sends (webhook deliveries, the proxy): `https` only; a port from 1 to 65535;
 * no destination in a loopback, private, link-local, metadata, unspecified, shared (CGNAT), multicast or reserved
 * range, IPv4-mapped and other IPv6 forms of them included, and no name of the local host (`localhost`,
 * `*.localhost`) or of a cloud metadata service; SVC_OUTBOUND_ALLOW lifts all but the scheme and port rules for the
 * destinations it lists. The URL is judged
 * by {@link checkUrl} before anything else happens, each resolved address by {@link checkAddress} before a socket
 * is opened to it: the address checked is the address connected to, so DNS rebinding gains nothing.
 *
 * Reasons are for people and name no resolved address (they end up in 400 answers).
 */
export class OutboundPolicy {
  constructor(private readonly allow: readonly OutboundAllowPattern[] = []) {}

  /** From the text of SVC_OUTBOUND_ALLOW; throws OutboundAllowListError on a malformed entry. */
  static fromAllowList(raw: string | undefined): OutboundPolicy {
    return new OutboundPolicy(parseOutboundAllowList(raw));
  }

  /** The scheme, credentials and (for an IP literal) address of a destination URL. */
  checkUrl(input: string | URL): OutboundDecision<OutboundTarget> {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return { allowed: false, reason: 'must be an absolute URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { allowed: false, reason: 'must be an https URL' };
    // As written, not only as parsed: WHATWG parsing reads `https:///h`, `https:/h`, `https:h`, `https:\\h` and
    // `https://<tab>/h` as host `h` (it drops tabs and line breaks, and reads a backslash as a slash), so such a URL
    // would be kept as typed and sent somewhere else. The host must follow `//` at once, and no whitespace or
    // backslash may appear anywhere (a valid URL has them percent-encoded).
    const written = typeof input === 'string' ? input.trim() : undefined;
    if (written !== undefined && (!/^https?:\/\/[A-Za-z0-9[\u0080-\uffff]/i.test(written) || /[\s\\]/.test(written))) {
      return { allowed: false, reason: 'must be written scheme://host/… with the host right after the two slashes, and no whitespace or backslash' };
    }
    if (url.username !== '' || url.password !== '') return { allowed: false, reason: 'must not carry credentials' };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === '') return { allowed: false, reason: 'must name a host' };
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    // `new URL()` takes port 0, which no connection can be made to (and which some resolvers read as "any").
    if (port === 0) return { allowed: false, reason: 'must name a port from 1 to 65535' };
    const allowListed = isAllowListed(this.allow, host, port);
    if (url.protocol === 'http:' && !allowListed) {
      return { allowed: false, reason: 'must be an https URL (plain http only for hosts listed in SVC_OUTBOUND_ALLOW)' };
    }
    const target: OutboundTarget = { url, host, port, allowListed };
    const name = allowListed ? undefined : refusedName(host);
    if (name !== undefined) return { allowed: false, reason: name };
    if (classifyAddress(host) !== undefined) {
      const address = this.checkAddress(target, host);
      if (!address.allowed) return address;
    }
    return { allowed: true, value: target };
  }

  /** One address `target.host` resolved to (or the literal itself): may a socket be opened to it? */
  checkAddress(target: OutboundTarget, address: string): OutboundDecision<string> {
    if (target.allowListed) return { allowed: true, value: address };
    const kind = classifyAddress(address);
    if (kind === undefined) return { allowed: false, reason: 'resolves to something that is not an IP address' };
    if (kind === 'public') return { allowed: true, value: address };
    return { allowed: false, reason: `points to ${DESCRIPTIONS[kind]}, which outbound requests may not reach` };
  }
}
