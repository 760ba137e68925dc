import type { AccessRule } from '../access/access-rule';
import type { ApplicationType, Permission } from '../access/permissions';

/**
 * Who is calling: resolved from an API key or a session key for the span of one request, and passed to every
 * use case. Every operation is scoped to `tenantId`.
 */
export interface Actor {
  readonly tenantId: string;
  readonly kind: 'application' | 'session';
  /** The application that holds the key; for a session, the public application it was created for. */
  readonly applicationId: string;
  readonly applicationType: ApplicationType;
  /** Present for sessions. */
  readonly sessionId?: string;
  readonly permissions: readonly Permission[];
  readonly rules: readonly AccessRule[];
  /** False only for a session that has not been authorized yet: such a session may do nothing. */
  readonly authorized: boolean;
  /** The request's trace id, recorded in audit events and webhook events. */
  readonly traceId?: string | undefined;
}
