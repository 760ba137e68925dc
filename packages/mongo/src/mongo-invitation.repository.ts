import type { Collection, Filter } from 'mongodb';
import type { Invitation, InvitationFilter, InvitationRepository, Page, PageRequest, SecretHashCondition } from '@svc/core';
import { fromInvitationDocument, type InvitationDocument, toInvitationDocument } from './invitation-document';
import { setOrUnset } from './documents';
import { isDuplicateKeyError } from './mongo-errors';
import { findPage, NEWEST_FIRST } from './paginate';

/** Invitations in MongoDB; the unique `{ tenant_id, email_lower }` index makes two concurrent invitations yield one. */
export class MongoInvitationRepository implements InvitationRepository {
  constructor(private readonly invitations: Collection<InvitationDocument>) {}

  async create(invitation: Invitation): Promise<boolean> {
    try {
      await this.invitations.insertOne(toInvitationDocument(invitation));
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
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
  async update(invitation: Invitation, condition?: SecretHashCondition): Promise<boolean> {
    const update = setOrUnset<InvitationDocument>({
      secret_hash: invitation.secretHash,
      expires_at: invitation.expiresAt,
      modified_by: invitation.modifiedBy,
      modified_at: invitation.modifiedAt,
    });
    const result = await this.invitations.updateOne(byId(invitation.tenantId, invitation.id, condition), update);
    return result.matchedCount === 1;
  }

  async delete(tenantId: string, id: string, condition?: SecretHashCondition): Promise<boolean> {
    return (await this.invitations.deleteOne(byId(tenantId, id, condition))).deletedCount === 1;
  }
}

/** One invitation of a tenant; with a condition, only while it carries that secret hash (one atomic match-and-write). */
function byId(tenantId: string, id: string, condition: SecretHashCondition | undefined): Filter<InvitationDocument> {
  const filter: Filter<InvitationDocument> = { _id: id, tenant_id: tenantId };
  if (condition) filter.secret_hash = condition.expectedSecretHash;
  return filter;
}
