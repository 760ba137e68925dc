import { NotFoundError } from '../shared/errors';
import type { Page } from '../shared/pagination';
import { pageRequest } from '../shared/pagination';
import { isApplicationType } from '../access/permissions';
import type { RuleInput } from '../access/rule-validation';
import type { Actor } from '../auth/actor';
import { generateKey, KEY_KIND_BY_TYPE } from '../auth/api-key';
import { requirePermission } from '../auth/authorize';
import { type Application, type ApplicationWithKey, isApplicationExpired } from './application';
import { validateApplicationInput } from './application-input';
import type { ApplicationDeps } from './create-application';
import { ValidationError } from '../shared/errors';

const notFound = (): NotFoundError => new NotFoundError('application');

/** Loads a live application of the caller's tenant; absent, expired and foreign ones are all "not found". */
async function load(deps: ApplicationDeps, actor: Actor, id: string): Promise<Application> {
  const application = await deps.applications.findById(actor.tenantId, id);
  if (!application || isApplicationExpired(application, deps.clock.now())) throw notFound();
  return application;
}

export class GetApplication {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, id: string): Promise<Application> {
    requirePermission(actor, 'application:read');
    return load(this.deps, actor, id);
  }
}

/** The application behind the presented key. */
export class GetApplicationByKey {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor): Promise<Application> {
    requirePermission(actor, 'application:read');
    return load(this.deps, actor, actor.applicationId);
  }
}

export interface ListApplicationsInput {
  readonly ids?: readonly string[] | undefined;
  readonly type?: string | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

export class ListApplications {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, input: ListApplicationsInput): Promise<Page<Application>> {
    requirePermission(actor, 'application:read');
    if (input.type !== undefined && !isApplicationType(input.type)) {
      throw ValidationError.field('type', 'Type must be one of private, public, management.');
    }
    const page = pageRequest(input.page, input.size);
    return this.deps.applications.list(
      actor.tenantId,
      { ...(input.ids?.length ? { ids: input.ids } : {}), ...(input.type ? { type: input.type } : {}), liveAt: this.deps.clock.now() },
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

  async execute(actor: Actor, id: string, input: UpdateApplicationInput): Promise<Application> {
    requirePermission(actor, 'application:update');
    const current = await load(this.deps, actor, id);
    const valid = validateApplicationInput(current.type, input);
    const updated: Application = {
      ...current,
      ...valid,
      modifiedBy: actor.applicationId,
      modifiedAt: this.deps.clock.now(),
    };
    if (!(await this.deps.applications.update(updated))) throw notFound();
    return updated;
  }
}

/** Issues a new key; the old one stops working at once. */
export class RegenerateApplicationKey {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, id: string): Promise<ApplicationWithKey> {
    requirePermission(actor, 'application:update');
    const current = await load(this.deps, actor, id);
    const key = generateKey(KEY_KIND_BY_TYPE[current.type], this.deps.random);
    const updated: Application = {
      ...current,
      keyHash: key.hash,
      modifiedBy: actor.applicationId,
      modifiedAt: this.deps.clock.now(),
    };
    if (!(await this.deps.applications.update(updated))) throw notFound();
    return { application: updated, key: key.plaintext };
  }
}

export class DeleteApplication {
  constructor(private readonly deps: ApplicationDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'application:delete');
    await load(this.deps, actor, id);
    if (!(await this.deps.applications.delete(actor.tenantId, id))) throw notFound();
    // A deleted public application takes its sessions with it.
    await this.deps.sessions?.deleteByApplication(actor.tenantId, id);
  }
}
