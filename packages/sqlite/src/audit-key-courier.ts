/**
 * Carries tenants' audit keys to the connection that writes audit events (ADR 4), so it can chain events as it
 * inserts them: one insert per event instead of an insert, a read back and an update by the chainer. Each key goes
 * once, with the first write of its tenant that has events; a connection that never got a key (no provider yet, or a
 * writer thread started afresh) inserts events unchained and the chainer places them later, so a lost key costs time,
 * never an event.
 */
export class AuditKeyCourier {
  private provider: ((tenantId: string) => Promise<Uint8Array>) | undefined;
  private readonly sent = new Set<string>();

  use(provider: (tenantId: string) => Promise<Uint8Array>): void {
    this.provider = provider;
  }

  /** The keys of `tenantIds` the writer has not been given yet; undefined (the usual answer) when there are none. */
  async keysFor(tenantIds: Iterable<string>): Promise<Readonly<Record<string, Uint8Array>> | undefined> {
    if (!this.provider) return undefined;
    let keys: Record<string, Uint8Array> | undefined;
    for (const tenantId of tenantIds) {
      if (this.sent.has(tenantId)) continue;
      (keys ??= {})[tenantId] = await this.provider(tenantId);
      this.sent.add(tenantId);
    }
    return keys;
  }

  /** Whether a write of this tenant would carry a key (checked without awaiting, on the hot path). */
  needs(tenantId: string): boolean {
    return this.provider !== undefined && !this.sent.has(tenantId);
  }
}
