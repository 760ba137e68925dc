import type { AccessRule } from '../access/access-rule';
import type { ApplicationType, Permission } from '../access/permissions';

/**
 * An API-key holder. Its keys are `ApplicationKey`s, stored beside it (several, each revocable alone).
 * `expiresAt`, when set, is the instant every key of it stops working; the sweeper deletes the application after it.
 */
export interface Application {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly type: ApplicationType;
  readonly permissions: readonly Permission[];
  readonly rules: readonly AccessRule[];
  readonly createdBy?: string | undefined;
  readonly createdAt: Date;
  readonly modifiedBy?: string | undefined;
  readonly modifiedAt?: Date | undefined;
  readonly expiresAt?: Date | undefined;
}

/** An application together with a plaintext key of it: only create and regenerate ever produce one. */
export interface ApplicationWithKey {
  readonly application: Application;
  readonly key: string;
}

/** An application as `POST /applications` made it: with its first key, unless it was asked for none (`create_key`). */
export interface CreatedApplication {
  readonly application: Application;
  readonly key?: string | undefined;
}

export function isApplicationExpired(application: Application, now: Date): boolean {
  return application.expiresAt !== undefined && application.expiresAt.getTime() <= now.getTime();
}
