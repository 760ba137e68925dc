import type { Database, Statement } from 'better-sqlite3';
import type { IdempotencyClaimInput, IdempotencyClaimResult, IdempotencyRepository, StoredIdempotentRequest } from '@svc/core';

interface IdempotencyRow {
  tenant_id: string;
  caller_id: string;
  key: string;
  fingerprint: string;
  claim_id: string;
  state: string;
  claimed_at: number;
  expires_at: number;
  sealed_response: Buffer | null;
}

const toEntry = (row: IdempotencyRow): StoredIdempotentRequest => ({
  tenantId: row.tenant_id,
  callerId: row.caller_id,
  key: row.key,
  fingerprint: row.fingerprint,
  claimId: row.claim_id,
  state: row.state === 'done' ? 'done' : 'running',
  claimedAt: new Date(row.claimed_at),
  expiresAt: new Date(row.expires_at),
  ...(row.sealed_response ? { sealedResponse: new Uint8Array(row.sealed_response) } : {}),
});

/**
 * Idempotency keys on the main connection (like sessions: small writes, not token writes). A claim is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE` statement, which SQLite runs as one write transaction: of concurrent claims
 * of a key, from this process or another sharing the file, exactly one inserts (or takes over) the row.
 */
export class SqliteIdempotencyRepository implements IdempotencyRepository {
  private readonly claimRow: Statement;
  private readonly byKey: Statement;
  private readonly completeRow: Statement;
  private readonly releaseRow: Statement;
  private readonly expired: Statement;

  constructor(db: Database) {
    this.claimRow = db.prepare(`INSERT INTO idempotency_keys (tenant_id, caller_id, key, fingerprint, claim_id, state, claimed_at, expires_at, sealed_response)
      VALUES (@tenantId, @callerId, @key, @fingerprint, @claimId, 'running', @claimedAt, @expiresAt, NULL)
      ON CONFLICT (tenant_id, caller_id, key) DO UPDATE SET
        fingerprint = excluded.fingerprint, claim_id = excluded.claim_id, state = 'running', claimed_at = excluded.claimed_at,
        expires_at = excluded.expires_at, sealed_response = NULL
      WHERE idempotency_keys.expires_at <= @now OR (idempotency_keys.state = 'running' AND idempotency_keys.claimed_at <= @staleBefore)
      RETURNING claim_id`);
    this.byKey = db.prepare('SELECT * FROM idempotency_keys WHERE tenant_id = ? AND caller_id = ? AND key = ? AND expires_at > ?');
    this.completeRow = db.prepare(`UPDATE idempotency_keys SET state = 'done', sealed_response = ?, expires_at = ?
      WHERE tenant_id = ? AND caller_id = ? AND key = ? AND claim_id = ? AND state = 'running'`);
    this.releaseRow = db.prepare(`DELETE FROM idempotency_keys WHERE tenant_id = ? AND caller_id = ? AND key = ? AND claim_id = ? AND state = 'running'`);
    this.expired = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  }

  async claim(input: IdempotencyClaimInput, now: Date, staleBefore: Date): Promise<IdempotencyClaimResult> {
    const won = this.claimRow.get({
      tenantId: input.tenantId,
      callerId: input.callerId,
      key: input.key,
      fingerprint: input.fingerprint,
      claimId: input.claimId,
      claimedAt: input.claimedAt.getTime(),
      expiresAt: input.expiresAt.getTime(),
      now: now.getTime(),
      staleBefore: staleBefore.getTime(),
    });
    if (won) return { claimed: true };
    // Lost: the row that holds the key is live (rows are only deleted by a release or the sweeper, which a claim that
    // races them simply wins on a retry).
    const row = this.byKey.get(input.tenantId, input.callerId, input.key, now.getTime()) as IdempotencyRow | undefined;
    return row ? { claimed: false, existing: toEntry(row) } : this.claim(input, now, staleBefore);
  }

  async complete(tenantId: string, callerId: string, key: string, claimId: string, sealedResponse: Uint8Array, expiresAt: Date): Promise<boolean> {
    return this.completeRow.run(Buffer.from(sealedResponse), expiresAt.getTime(), tenantId, callerId, key, claimId).changes === 1;
  }

  async release(tenantId: string, callerId: string, key: string, claimId: string): Promise<void> {
    this.releaseRow.run(tenantId, callerId, key, claimId);
  }

  async find(tenantId: string, callerId: string, key: string, now: Date): Promise<StoredIdempotentRequest | undefined> {
    const row = this.byKey.get(tenantId, callerId, key, now.getTime()) as IdempotencyRow | undefined;
    return row && toEntry(row);
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.expired.run(now.getTime()).changes;
  }
}
