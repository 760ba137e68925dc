/**
 * Looks up the addresses of a host name (DNS, the hosts file), for checks made before any request is sent: a webhook's
 * url at create and update. The outbound client resolves again, and checks again, when it connects.
 */
export interface HostResolver {
  /**
   * The addresses `hostname` has now (IP literals as text). `unresolved` when it has none, or the lookup failed or
   * took too long: the caller decides what an unknown name means.
   */
  resolve(hostname: string): Promise<HostLookup>;
}

export type HostLookup = { readonly kind: 'resolved'; readonly addresses: readonly string[] } | { readonly kind: 'unresolved' };
