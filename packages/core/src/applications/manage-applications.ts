import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import type { Page } from '../shared/pagination';
import { pageRequest } from '../shared/pagination';
import { isApplicationType } from '../access/permissions';
import type { RuleInput } from '../access/rule-validation';
import type { Actor } from '../auth/actor';
import { requireHeld, requirePermission } from '../auth/authorize';
import type { Application, ApplicationWithKey } from './application';
import { validateApplicationInput } from './application-input';
import { issueApplicationKey } from './application-key';
import { applicationNotFound as notFound, loadApplication } from './load-application';
import { type ApplicationDeps, applicationFact } from './create-application';
import { auditOf } from '../audit/audit';
import { applicationHookData } from '../audit/audit-effects';
import { ValidationError } from '../shared/errors';

export class GetApplication {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, id: string): Promise<Application> {
    requirePermission(actor, 'application:read');
    const application = await loadApplication(this.deps, actor, id);
    auditOf(this.deps).record(actor, this.deps.clock.now(), applicationFact(id, 'read', 'Application read'));
    return application;
  }
}

/** The application behind the presented key. */
export class GetApplicationByKey {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor): Promise<Application> {
    requirePermission(actor, 'application:read');
    return loadApplication(this.deps, actor, actor.applicationId);
  }
}

export interface ListApplicationsInput {
  readonly ids?: readonly string[] | undefined;
  /** Any of these types (repeatable, as the Basis Theory SDK sends an array). */
  readonly types?: readonly string[] | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

export class ListApplications {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, input: ListApplicationsInput): Promise<Page<Application>> {
    requirePermission(actor, 'application:read');
    const types = input.types ?? [];
    types.forEach((type, i) => {
      if (!isApplicationType(type)) throw ValidationError.field(types.length > 1 ? `type[${i}]` : 'type', 'Type must be one of private, public, management.');
    });
    const page = pageRequest(input.page, input.size);
    return this.deps.applications.list(
      actor.tenantId,
      { ...(input.ids?.length ? { ids: input.ids } : {}), ...(types.length > 0 ? { types: types.filter(isApplicationType) } : {}), liveAt: this.deps.clock.now() },
      page,
    );
  }
}

export interface UpdateApplicationInput {
  readonly name: string;
  readonly permissions?: readonly string[] | undefined;
  readonly rules?: readonly RuleInput[] | undefined;
}

export class UpdateApplication {
  constructor(private readonly deps: ApplicationDeps) {}

  /** `keep`: the answer is kept with the update (an idempotency key's, see KeepAnswer). */
  async execute(actor: Actor, id: string, input: UpdateApplicationInput, keep?: KeepAnswer<Application>): Promise<Application> {
    requirePermission(actor, 'application:update');
    const current = await loadApplication(this.deps, actor, id);
    const valid = validateApplicationInput(current.type, input);
    requireHeld(actor, current);
    requireHeld(actor, { type: current.type, permissions: valid.permissions });
    const updated: Application = {
      ...current,
      ...valid,
      modifiedBy: actor.applicationId,
      modifiedAt: this.deps.clock.now(),
    };
    const effects = auditOf(this.deps).write(actor, updated.modifiedAt!, applicationFact(id, 'update', 'Application updated'), [
      { type: 'application.updated', data: applicationHookData(updated) },
    ]);
    if (!(await this.deps.applications.update(updated, await keptWith(effects, keep, updated)))) throw notFound();
    return updated;
  }
}

/** Issues a new key that replaces every key of the application: all the others stop working at once. */
export class RegenerateApplicationKey {
  constructor(private readonly deps: ApplicationDeps) {}

  /** `keep`: seals the answer for an idempotency key, kept in the keys' own write. */
  async execute(actor: Actor, id: string, keep?: KeepAnswer<ApplicationWithKey>): Promise<ApplicationWithKey> {
    requirePermission(actor, 'application:update');
    const current = await loadApplication(this.deps, actor, id);
    requireHeld(actor, current);
    const updated: Application = {
      ...current,
      modifiedBy: actor.applicationId,
      modifiedAt: this.deps.clock.now(),
    };
    const issued = issueApplicationKey(this.deps, updated, actor.applicationId);
    const effects = auditOf(this.deps).write(actor, updated.modifiedAt!, applicationFact(id, 'regenerate', 'Application keys replaced by a new key'), [
      { type: 'application.key.created', data: { ...applicationHookData(updated), key_id: issued.key.id } },
    ]);
    const regenerated = { application: updated, key: issued.plaintext };
    if (!(await this.deps.applications.replaceKeys(updated, issued.key, await keptWith(effects, keep, regenerated)))) throw notFound();
    return regenerated;
  }
}

export class DeleteApplication {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'application:delete');
    const application = await loadApplication(this.deps, actor, id);
    const effects = auditOf(this.deps).write(actor, this.deps.clock.now(), applicationFact(id, 'delete', 'Application deleted'), [
      { type: 'application.deleted', data: applicationHookData(application) },
    ]);
    if (!(await this.deps.applications.delete(actor.tenantId, id, effects))) throw notFound();
    // A deleted public application takes its sessions with it.
    await this.deps.sessions?.deleteByApplication(actor.tenantId, id);
  }
}
