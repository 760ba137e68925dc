import type { HostLookup, HostResolver } from '@svc/core';
import { gateLookups } from './lookup-gate';
import { type AddressLookup, systemLookup } from './system-lookup';

export interface DnsHostResolverOptions {
  /** Milliseconds a lookup may take before the name counts as unresolved. Default 2 s. */
  readonly timeoutMs?: number | undefined;
  /** Replaces the system lookup (tests). */
  readonly lookup?: AddressLookup | undefined;
  /** At most this many lookups at a time (see gateLookups); waiting counts against the timeout. Default 2. */
  readonly maxConcurrentLookups?: number | undefined;
}

/**
 * HostResolver over the system's lookup, as the outbound client connects (so `/etc/hosts` counts), bounded by a
 * timeout: a name that does not resolve, fails to, or takes longer is `unresolved`. getaddrinfo cannot be cancelled;
 * a lookup past the timeout finishes unseen in libuv's pool.
 */
export class DnsHostResolver implements HostResolver {
  private readonly timeoutMs: number;
  private readonly lookup: AddressLookup;

  constructor(options: DnsHostResolverOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.lookup = gateLookups(options.lookup ?? systemLookup, options.maxConcurrentLookups ?? 2);
  }

  async resolve(hostname: string): Promise<HostLookup> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.timeoutMs);
    });
    try {
      const addresses = await Promise.race([this.lookup(hostname).catch(() => undefined), late]);
      return addresses === undefined || addresses.length === 0 ? { kind: 'unresolved' } : { kind: 'resolved', addresses };
    } finally {
      clearTimeout(timer);
    }
  }
}
