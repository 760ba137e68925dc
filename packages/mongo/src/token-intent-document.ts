import type { Binary } from 'mongodb';
import type { StoredTokenIntent, TokenIntentType } from '@svc/core';
import { fromBinary, toBinary } from './documents';

/**
 * A token intent; `_id` is its id. The data is sealed (AES-256-GCM) in `sealed_data`; nothing derived from it is
 * stored but the keyed fingerprint.
 */
export interface TokenIntentDocument {
  _id: string;
  tenant_id: string;
  type: TokenIntentType;
  sealed_data: Binary;
  fingerprint: string;
  created_by: string;
  created_at: Date;
  expires_at: Date;
}

export const toTokenIntentDocument = (i: StoredTokenIntent): TokenIntentDocument => ({
  _id: i.id,
  tenant_id: i.tenantId,
  type: i.type,
  sealed_data: toBinary(i.sealedData),
  fingerprint: i.fingerprint,
  created_by: i.createdBy,
  created_at: i.createdAt,
  expires_at: i.expiresAt,
});

export const fromTokenIntentDocument = (d: TokenIntentDocument): StoredTokenIntent => ({
  id: d._id,
  tenantId: d.tenant_id,
  type: d.type,
  sealedData: fromBinary(d.sealed_data),
  fingerprint: d.fingerprint,
  createdBy: d.created_by,
  createdAt: d.created_at,
  expiresAt: d.expires_at,
});
