import { lookup as dnsLookup } from 'node:dns/promises';

/** Every address of a host name, as text. */
export type AddressLookup = (hostname: string) => Promise<readonly string[]>;

/**
 * The system's lookup (getaddrinfo: the hosts file, then DNS), as the outbound client connects and as webhook URLs are
 * checked before: every address, in the order the system gives them.
 */
export const systemLookup: AddressLookup = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
