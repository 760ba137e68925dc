import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import { NotFoundError, ValidationError } from '../shared/errors';
import type { Actor } from '../auth/actor';
import { requireHeld, requirePermission } from '../auth/authorize';
import { type ApplicationKey, type IssuedApplicationKey, issueApplicationKey, MAX_APPLICATION_KEYS } from './application-key';
import type { ApplicationDeps } from './create-application';
import { applicationNotFound, loadApplication } from './load-application';
import { applicationFact } from './create-application';
import { auditOf } from '../audit/audit';
import { applicationHookData } from '../audit/audit-effects';

/** A key of another application, even of the same tenant, is as absent as an unknown one. */
const keyNotFound = (): NotFoundError => new NotFoundError('application key');

/**
 * Adds a key to an application beside the ones it holds, so a client can move to the new key before the old one is
 * revoked (rotation without downtime). At most {@link MAX_APPLICATION_KEYS} keys per application.
 */
export class CreateApplicationKey {
  constructor(private readonly deps: ApplicationDeps) {}

  /** `keep`: seals the answer for an idempotency key, kept in the key's own write. */
  async execute(actor: Actor, applicationId: string, keep?: KeepAnswer<IssuedApplicationKey>): Promise<IssuedApplicationKey> {
    requirePermission(actor, 'application:update');
    const application = await loadApplication(this.deps, actor, applicationId);
    requireHeld(actor, application);
    const issued = issueApplicationKey(this.deps, application, actor.applicationId);
    const effects = auditOf(this.deps).write(actor, issued.key.createdAt, applicationFact(applicationId, 'key.create', `Application key ${issued.key.id} created`), [
      { type: 'application.key.created', data: { ...applicationHookData(application), key_id: issued.key.id } },
    ]);
    const outcome = await this.deps.applications.addKey(issued.key, MAX_APPLICATION_KEYS, await keptWith(effects, keep, issued));
    if (outcome === 'absent') throw applicationNotFound();
    if (outcome === 'limit') {
      throw ValidationError.field('keys', `An application holds at most ${MAX_APPLICATION_KEYS} keys: delete one before creating another.`);
    }
    return issued;
  }
}

/** The keys of an application, newest first; their values were shown once, at creation, and are not kept. */
export class ListApplicationKeys {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, applicationId: string): Promise<ApplicationKey[]> {
    requirePermission(actor, 'application:read');
    await loadApplication(this.deps, actor, applicationId);
    return this.deps.applications.listKeys(actor.tenantId, applicationId);
  }
}

export class GetApplicationKey {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, applicationId: string, keyId: string): Promise<ApplicationKey> {
    requirePermission(actor, 'application:read');
    await loadApplication(this.deps, actor, applicationId);
    const key = await this.deps.applications.findKey(actor.tenantId, applicationId, keyId);
    if (!key) throw keyNotFound();
    return key;
  }
}

/**
 * Revokes one key: it fails from the next request on, the application's other keys keep working. Revoking the last
 * key is allowed (the application then authenticates nothing until a key is created or regenerated for it).
 */
export class DeleteApplicationKey {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, applicationId: string, keyId: string): Promise<void> {
    requirePermission(actor, 'application:update');
    const application = await loadApplication(this.deps, actor, applicationId);
    const effects = auditOf(this.deps).write(actor, this.deps.clock.now(), applicationFact(applicationId, 'key.delete', `Application key ${keyId} deleted`), [
      { type: 'application.key.deleted', data: { ...applicationHookData(application), key_id: keyId } },
    ]);
    if (!(await this.deps.applications.deleteKey(actor.tenantId, applicationId, keyId, effects))) throw keyNotFound();
  }
}
