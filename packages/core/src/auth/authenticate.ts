import type { Clock } from '../shared/clock';
import { UnauthenticatedError } from '../shared/errors';
import { isApplicationExpired } from '../applications/application';
import type { ApplicationRepository } from '../applications/application.repository';
import type { Actor } from './actor';
import { hashKey } from './api-key';

export interface AuthenticateDeps {
  readonly applications: ApplicationRepository;
  readonly clock: Clock;
}

/** Turns a presented key into an actor, or fails with 401 for a missing, unknown, expired or revoked key. */
export class Authenticate {
  constructor(private readonly deps: AuthenticateDeps) {}

  async execute(key: string | undefined): Promise<Actor> {
    if (!key) throw new UnauthenticatedError();
    const application = await this.deps.applications.findByKeyHash(hashKey(key));
    if (!application || isApplicationExpired(application, this.deps.clock.now())) {
      throw new UnauthenticatedError('The API key is invalid or expired.');
    }
    return {
      tenantId: application.tenantId,
      kind: 'application',
      applicationId: application.id,
      applicationType: application.type,
      permissions: application.permissions,
      rules: application.rules,
      authorized: true,
    };
  }
}
