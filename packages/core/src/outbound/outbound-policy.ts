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

/**
 * The SSRF rules for every request svc sends (webhook deliveries, the proxy): `https` only; no destination in a
 * loopback, private, link-local, metadata, unspecified, shared (CGNAT), multicast or reserved range, IPv4-mapped and
 * other IPv6 forms of them included; SVC_OUTBOUND_ALLOW lifts both for the destinations it lists. The URL is judged
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
    if (url.username !== '' || url.password !== '') return { allowed: false, reason: 'must not carry credentials' };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === '') return { allowed: false, reason: 'must name a host' };
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    const allowListed = isAllowListed(this.allow, host, port);
    if (url.protocol === 'http:' && !allowListed) {
      return { allowed: false, reason: 'must be an https URL (plain http only for hosts listed in SVC_OUTBOUND_ALLOW)' };
    }
    const target: OutboundTarget = { url, host, port, allowListed };
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
