import type { AnyBulkWriteOperation, ClientSession, Collection, Filter, MongoClient, Sort } from 'mongodb';
import {
  type AuditEvent,
  type AuditLogFilter,
  type AuditLogRepository,
  CHAIN_START,
  chainPendingThrough,
  type ChainAnchor,
  type ChainedAuditEvent,
  type Page,
  type PageRequest,
} from '@svc/core';
import {
  type AuditEventDocument,
  chainPlace,
  type ChainPointDocument,
  fromAuditEventDocument,
  fromChainedAuditEventDocument,
  fromChainPointDocument,
  toAuditEventDocument,
} from './audit-event-document';
import { abortWith, inTransaction } from './effect-writes';
import { isDuplicateKeyError, isTransactionConflict } from './mongo-errors';
import { findPage } from './paginate';

/** `GET /logs` order: newest first, then by event id, both descending. */
export const AUDIT_NEWEST_FIRST: Sort = { created_at: -1, id: -1 };

/** Events the chainer has not placed yet (`null` also matches a missing field). */
export const UNCHAINED = { chain_seq: null } as const;
/** Events the chainer has placed (numbers only: type bracketing keeps `null` out of `$gt`). */
export const CHAINED = { chain_seq: { $gt: 0 } } as const;

/** A tenant's events matching `filter`: `start ≤ created_at < end`. */
export function auditLogQuery(tenantId: string, filter: AuditLogFilter): Filter<AuditEventDocument> {
  const query: Filter<AuditEventDocument> = { tenant_id: tenantId };
  if (filter.entityType !== undefined) query.entity_type = filter.entityType;
  if (filter.entityId !== undefined) query.entity_id = filter.entityId;
  if (filter.startDate !== undefined || filter.endDate !== undefined) {
    query.created_at = {
      ...(filter.startDate !== undefined ? { $gte: filter.startDate } : {}),
      ...(filter.endDate !== undefined ? { $lt: filter.endDate } : {}),
    };
  }
  return query;
}

/**
 * The leading chained events `prune` may remove: in `chain_seq` order, those created before `before`, up to the
 * first that is not (later ones stay even if older: the chain is cut only at its start).
 */
export function prunablePrefix<D extends Pick<AuditEventDocument, 'created_at'>>(oldestFirst: readonly D[], before: Date): D[] {
  const end = oldestFirst.findIndex((doc) => doc.created_at.getTime() >= before.getTime());
  return end === -1 ? [...oldestFirst] : oldestFirst.slice(0, end);
}

const sameAnchor = (a: ChainAnchor, b: ChainAnchor): boolean => a.chainSeq === b.chainSeq && a.hash === b.hash;

/** Runs a write of `chain`; losing to a concurrent chainer (a conflict, or the head created meanwhile) ends as false. */
async function orLost<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isTransactionConflict(error) || isDuplicateKeyError(error)) abortWith(false);
    throw error;
  }
}

/**
 * The audit log in MongoDB (`audit_events`). Each tenant's chain head is a document of its own (`audit_heads`), read
 * and written in the transaction that chains: two chainers of a tenant both write it, so one of them meets a write
 * conflict and changes nothing. Writers never touch it, so writes do not contend on it. `audit_anchors` holds, per
 * tenant, the last event pruned. Chaining and pruning are transactions: they need a replica set.
 */
export class MongoAuditLogRepository implements AuditLogRepository {
  constructor(
    private readonly events: Collection<AuditEventDocument>,
    private readonly heads: Collection<ChainPointDocument>,
    private readonly anchors: Collection<ChainPointDocument>,
    private readonly client: MongoClient,
  ) {}

  /**
   * One `insertMany` (one command, no transaction): these are events of reads and refusals, of which ADR 4 allows a
   * crash to lose the last moments'.
   */
  async append(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.events.insertMany(events.map(toAuditEventDocument));
  }

  async list(tenantId: string, filter: AuditLogFilter, page: PageRequest): Promise<Page<AuditEvent>> {
    return findPage(this.events, auditLogQuery(tenantId, filter), AUDIT_NEWEST_FIRST, page, fromAuditEventDocument);
  }

  async unchainedTenants(limit: number): Promise<string[]> {
    return (await this.events.distinct('tenant_id', UNCHAINED)).sort().slice(0, limit);
  }

  async unchained(tenantId: string, limit: number): Promise<AuditEvent[]> {
    const docs = await this.events
      .find({ tenant_id: tenantId, ...UNCHAINED })
      .sort({ created_at: 1, id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(fromAuditEventDocument);
  }

  async countUnchainedBefore(tenantId: string, before: Date): Promise<number> {
    return this.events.countDocuments({ tenant_id: tenantId, ...UNCHAINED, created_at: { $lt: before } });
  }

  async chainHead(tenantId: string): Promise<ChainAnchor> {
    return this.head(tenantId, undefined);
  }

  /**
   * One transaction: the head as stored must be `head`; each event is placed only while still unchained (one that is
   * not, or is missing, aborts all); the head moves to the last. A concurrent chainer's transaction conflicts on the
   * head document (or on an event), and the loser answers false.
   */
  async chain(tenantId: string, head: ChainAnchor, chained: readonly ChainedAuditEvent[]): Promise<boolean> {
    if (chained.some((event) => event.tenantId !== tenantId)) return false;
    return inTransaction(this.client, async (session) => {
      if (!sameAnchor(await this.head(tenantId, session), head)) abortWith(false);
      const last = chained[chained.length - 1];
      if (last === undefined) return true;
      const places: AnyBulkWriteOperation<AuditEventDocument>[] = chained.map((event) => ({
        updateOne: { filter: { tenant_id: tenantId, id: event.id, ...UNCHAINED }, update: { $set: chainPlace(event) } },
      }));
      const placed = await orLost(this.events.bulkWrite(places, { session, ordered: true }));
      if (placed.matchedCount !== chained.length) abortWith(false);
      await orLost(this.heads.updateOne({ _id: tenantId }, { $set: { chain_seq: last.chainSeq, hash: last.hash } }, { upsert: true, session }));
      return true;
    });
  }

  chainPending(tenantId: string, key: Uint8Array, limit: number): Promise<number> {
    return chainPendingThrough(this, tenantId, key, limit);
  }

  async chained(tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]> {
    const docs = await this.events
      .find({ tenant_id: tenantId, chain_seq: { $gt: afterSeq } })
      .sort({ chain_seq: 1 })
      .limit(limit)
      .toArray();
    return docs.map(fromChainedAuditEventDocument);
  }

  async anchor(tenantId: string): Promise<ChainAnchor> {
    const doc = await this.anchors.findOne({ _id: tenantId });
    return doc ? fromChainPointDocument(doc) : CHAIN_START;
  }

  async streams(): Promise<string[]> {
    // A tenant whose every event was deleted still has its head document, and verify names the cut.
    const [withEvents, withAnchors, withHeads] = await Promise.all([
      this.events.distinct('tenant_id'),
      this.anchors.distinct('_id'),
      this.heads.distinct('_id'),
    ]);
    return [...new Set([...withEvents, ...withAnchors, ...withHeads])].sort();
  }

  /** Tenant by tenant, each in a transaction of its own that deletes its prunable prefix and moves its anchor. */
  async prune(before: Date, limit: number): Promise<number> {
    let removed = 0;
    for (const tenantId of (await this.events.distinct('tenant_id')).sort()) {
      if (removed >= limit) break;
      removed += await this.pruneTenant(tenantId, before, limit - removed);
    }
    return removed;
  }

  private async pruneTenant(tenantId: string, before: Date, limit: number): Promise<number> {
    return inTransaction(this.client, async (session) => {
      const oldest = await this.events
        .find({ tenant_id: tenantId, ...CHAINED }, { session, projection: { id: 1, chain_seq: 1, hash: 1, created_at: 1 } })
        .sort({ chain_seq: 1 })
        .limit(limit)
        .toArray();
      const due = prunablePrefix(oldest, before);
      const last = due[due.length - 1];
      if (last === undefined) return 0;
      const deleted = await this.events.deleteMany({ tenant_id: tenantId, id: { $in: due.map((doc) => doc.id) }, ...CHAINED }, { session });
      // The snapshot showed every one of them, and a concurrent delete would have been a conflict: never true.
      if (deleted.deletedCount !== due.length) abortWith(0);
      await this.anchors.updateOne(
        { _id: tenantId },
        { $set: { chain_seq: last.chain_seq ?? 0, hash: last.hash ?? '' } },
        { upsert: true, session },
      );
      return due.length;
    });
  }

  /**
   * The tenant's head document; without one (nothing chained since the collection existed), its last chained event,
   * else its anchor, else the start of a chain.
   */
  private async head(tenantId: string, session: ClientSession | undefined): Promise<ChainAnchor> {
    const head = await this.heads.findOne({ _id: tenantId }, { session });
    if (head) return fromChainPointDocument(head);
    const last = await this.events.findOne(
      { tenant_id: tenantId, ...CHAINED },
      { session, sort: { chain_seq: -1 }, projection: { chain_seq: 1, hash: 1 } },
    );
    if (last) return { chainSeq: last.chain_seq ?? 0, hash: last.hash ?? '' };
    const anchor = await this.anchors.findOne({ _id: tenantId }, { session });
    return anchor ? fromChainPointDocument(anchor) : CHAIN_START;
  }
}
