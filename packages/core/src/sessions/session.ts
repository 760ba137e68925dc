import type { WriteEffects } from '../audit/write-effects';
import type { AccessRule } from '../access/access-rule';
import type { Permission } from '../access/permissions';

/**
 * A short-lived key for a browser or phone, created for a public application and authorized by a backend.
 * Only hashes of the session key and the nonce are stored. Until `authorizedAt` is set it grants nothing.
 */
export interface Session {
  readonly id: string;
  readonly tenantId: string;
  /** The public application it was created for; tokens it creates record this as created_by. */
  readonly applicationId: string;
  readonly keyHash: string;
  readonly nonceHash: string;
  readonly createdAt: Date;
  /** The session is gone at this instant (3 minutes after creation unless authorize set another). */
  readonly expiresAt: Date;
  readonly authorizedAt?: Date | undefined;
  readonly permissions: readonly Permission[];
  readonly rules: readonly AccessRule[];
}

/** What a backend grants when it authorizes a session. */
export interface SessionGrant {
  readonly permissions: readonly Permission[];
  readonly rules: readonly AccessRule[];
  readonly expiresAt: Date;
  readonly authorizedAt: Date;
}

export function isSessionExpired(session: Session, now: Date): boolean {
  return session.expiresAt.getTime() <= now.getTime();
}

export interface SessionRepository {
  create(session: Session, effects?: WriteEffects): Promise<void>;
  findByKeyHash(keyHash: string): Promise<Session | undefined>;
  /** In any tenant: the caller compares tenants, so a foreign nonce looks exactly like an unknown one. */
  findByNonceHash(nonceHash: string): Promise<Session | undefined>;
  /** Grants the session once: false when it was authorized before (or is gone). Atomic. */
  authorize(tenantId: string, id: string, grant: SessionGrant, effects?: WriteEffects): Promise<boolean>;
  /** Deletes sessions whose expiresAt is at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
  /** Deletes every session of an application (the application was deleted). */
  deleteByApplication(tenantId: string, applicationId: string): Promise<number>;
}
