import type { Clock } from '../shared/clock';
import { UnauthenticatedError } from '../shared/errors';
import { type Application, isApplicationExpired } from '../applications/application';
import type { ApplicationRepository } from '../applications/application.repository';
import type { Actor } from './actor';
import { hashKey } from './api-key';
import { isSessionExpired, type SessionRepository } from '../sessions/session';

export interface AuthenticateDeps {
  readonly applications: ApplicationRepository;
  readonly sessions: SessionRepository;
  readonly clock: Clock;
}

const SESSION_KEY_PREFIX = 'key_ses_';

/** An application acting through one of its keys (or for a proxy it is set on). */
export function applicationActor(application: Application, traceId?: string): Actor {
  return {
    tenantId: application.tenantId,
    kind: 'application',
    applicationId: application.id,
    applicationType: application.type,
    permissions: application.permissions,
    rules: application.rules,
    authorized: true,
    traceId,
  };
}

/**
 * Turns a presented key (an application's or a session's) into an actor, or fails with 401 for a missing, unknown,
 * expired or revoked key.
 */
export class Authenticate {
  constructor(private readonly deps: AuthenticateDeps) {}

  /** `traceId`: the request's, carried on the actor into the events it causes. */
  async execute(key: string | undefined, traceId?: string): Promise<Actor> {
    if (!key) throw new UnauthenticatedError();
    if (key.startsWith(SESSION_KEY_PREFIX)) return this.session(key, traceId);
    const application = await this.deps.applications.findByKeyHash(hashKey(key));
    if (!application || isApplicationExpired(application, this.deps.clock.now())) {
      throw new UnauthenticatedError('The API key is invalid or expired.');
    }
    return applicationActor(application, traceId);
  }

  /** A session acts for its public application, which must still exist; before authorization it may do nothing. */
  private async session(key: string, traceId: string | undefined): Promise<Actor> {
    const now = this.deps.clock.now();
    const session = await this.deps.sessions.findByKeyHash(hashKey(key));
    const application = session && (await this.deps.applications.findById(session.tenantId, session.applicationId));
    if (!session || isSessionExpired(session, now) || !application || isApplicationExpired(application, now)) {
      throw new UnauthenticatedError('The session key is invalid or expired.');
    }
    return {
      tenantId: session.tenantId,
      kind: 'session',
      applicationId: session.applicationId,
      applicationType: application.type,
      sessionId: session.id,
      permissions: session.permissions,
      rules: session.rules,
      authorized: session.authorizedAt !== undefined,
      traceId,
    };
  }
}
