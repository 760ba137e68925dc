import type { Collection, Filter } from 'mongodb';
import type { Invitation, InvitationFilter, InvitationRepository, Page, PageRequest, SecretHashCondition, WriteEffects } from '@svc/core';
import { fromInvitationDocument, type InvitationDocument, toInvitationDocument } from './invitation-document';
import { setOrUnset } from './documents';
import { abortWith, type EffectWrites, whenTrue } from './effect-writes';
import { isDuplicateKeyError } from './mongo-errors';
import { findPage, NEWEST_FIRST } from './paginate';

/**
 * Invitations in MongoDB; the unique `{ tenant_id, email_lower }` index makes two concurrent invitations yield one. A
 * write with WriteEffects runs in a transaction that stores them when it changed something (see EffectWrites).
 */
export class MongoInvitationRepository implements InvitationRepository {
  constructor(
    private readonly invitations: Collection<InvitationDocument>,
    private readonly effects: EffectWrites,
  ) {}

  async create(invitation: Invitation, effects?: WriteEffects): Promise<boolean> {
    return this.effects.write(
      effects,
      async (session) => {
        try {
          await this.invitations.insertOne(toInvitationDocument(invitation), { session });
          return true;
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
          // In a transaction the refused insert has aborted it on the server: end it here, storing nothing.
          return session ? abortWith(false) : false;
        }
      },
      whenTrue,
    );
  }

  async findById(tenantId: string, id: string): Promise<Invitation | undefined> {
    const doc = await this.invitations.findOne({ _id: id, tenant_id: tenantId });
    return doc ? fromInvitationDocument(doc) : undefined;
  }

  async findBySecretHash(secretHash: string): Promise<Invitation | undefined> {
    const doc = await this.invitations.findOne({ secret_hash: secretHash });
    return doc ? fromInvitationDocument(doc) : undefined;
  }

  async findByEmail(tenantId: string, email: string): Promise<Invitation | undefined> {
    const doc = await this.invitations.findOne({ tenant_id: tenantId, email_lower: email.toLowerCase() });
    return doc ? fromInvitationDocument(doc) : undefined;
  }

  async list(tenantId: string, filter: InvitationFilter, page: PageRequest): Promise<Page<Invitation>> {
    const query: Filter<InvitationDocument> = { tenant_id: tenantId };
    if (filter.status === 'PENDING') query.expires_at = { $gt: filter.now };
    if (filter.status === 'EXPIRED') query.expires_at = { $lte: filter.now };
    return findPage(this.invitations, query, NEWEST_FIRST, page, fromInvitationDocument);
  }

  /** A resend: a new secret and expiry (and who changed it); the e-mail and creation stay as they were. */
  async update(invitation: Invitation, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean> {
    const update = setOrUnset<InvitationDocument>({
      secret_hash: invitation.secretHash,
      expires_at: invitation.expiresAt,
      modified_by: invitation.modifiedBy,
      modified_at: invitation.modifiedAt,
    });
    const filter = byId(invitation.tenantId, invitation.id, condition);
    return this.effects.write(effects, async (session) => (await this.invitations.updateOne(filter, update, { session })).matchedCount === 1, whenTrue);
  }

  async delete(tenantId: string, id: string, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean> {
    const filter = byId(tenantId, id, condition);
    return this.effects.write(effects, async (session) => (await this.invitations.deleteOne(filter, { session })).deletedCount === 1, whenTrue);
  }
}

/** One invitation of a tenant; with a condition, only while it carries that secret hash (one atomic match-and-write). */
function byId(tenantId: string, id: string, condition: SecretHashCondition | undefined): Filter<InvitationDocument> {
  const filter: Filter<InvitationDocument> = { _id: id, tenant_id: tenantId };
  if (condition) filter.secret_hash = condition.expectedSecretHash;
  return filter;
}
