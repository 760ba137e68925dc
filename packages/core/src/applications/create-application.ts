import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import type { Clock } from '../shared/clock';
import { futureDate } from '../shared/dates';
import type { IdGenerator } from '../shared/ids';
import type { RandomSource } from '../shared/random';
import { ValidationError } from '../shared/errors';
import { isApplicationType } from '../access/permissions';
import type { RuleInput } from '../access/rule-validation';
import type { Actor } from '../auth/actor';
import { requireHeld, requirePermission } from '../auth/authorize';
import type { Application, ApplicationWithKey, CreatedApplication } from './application';
import { issueApplicationKey } from './application-key';
import { validateApplicationInput } from './application-input';
import type { ApplicationRepository } from './application.repository';
import type { SessionRepository } from '../sessions/session';
import { type Audit, auditOf } from '../audit/audit';
import { applicationHookData, type AuditActor, factsAbout, systemActor } from '../audit/audit-effects';

/** An event about an application. */
export const applicationFact = factsAbout('application');

export interface CreateApplicationInput {
  readonly name: string;
  readonly type: string;
  readonly permissions?: readonly string[] | undefined;
  readonly rules?: readonly RuleInput[] | undefined;
  readonly expiresAt?: string | null | undefined;
  /** False: the application is made without a key (Basis Theory's `create_key`); add one with POST …/keys. */
  readonly createKey?: boolean | undefined;
}

export interface ApplicationDeps {
  readonly applications: ApplicationRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: RandomSource;
  /** Sessions of deleted applications are deleted with them. */
  readonly sessions?: SessionRepository;
  /** Records what callers do (ADR 4); absent in unit tests of other rules. */
  readonly audit?: Audit | undefined;
}

export class CreateApplication {
  constructor(private readonly deps: ApplicationDeps) {}

  /** `keep`: seals the answer for an idempotency key, kept in the application's own write. */
  async execute(actor: Actor, input: CreateApplicationInput, keep?: KeepAnswer<CreatedApplication>): Promise<CreatedApplication> {
    requirePermission(actor, 'application:create');
    if (isApplicationType(input.type)) requireHeld(actor, { type: input.type, permissions: validateApplicationInput(input.type, input).permissions });
    return this.make(actor.tenantId, actor.applicationId, input, undefined, actor, keep, input.createKey !== false);
  }

  /**
   * Creates an application without a caller's permission check: for tenant provisioning. `presetKey` installs an
   * operator-chosen key (the bootstrap key) instead of a generated one.
   */
  async create(
    tenantId: string,
    createdBy: string | undefined,
    input: CreateApplicationInput,
    presetKey?: string,
    /** Who asked; provisioning (no caller) is recorded as svc itself. */
    by: Actor | AuditActor = systemActor(tenantId),
  ): Promise<ApplicationWithKey> {
    const { application, key } = await this.make(tenantId, createdBy, input, presetKey, by, undefined, true);
    // Made with its key (`true` above): provisioning always hands one out.
    return { application, key: key! };
  }

  private async make(
    tenantId: string,
    createdBy: string | undefined,
    input: CreateApplicationInput,
    presetKey: string | undefined,
    by: Actor | AuditActor,
    keep: KeepAnswer<CreatedApplication> | undefined,
    withKey: boolean,
  ): Promise<CreatedApplication> {
    if (!isApplicationType(input.type)) {
      throw ValidationError.field('type', 'Type must be one of private, public, management.');
    }
    const now = this.deps.clock.now();
    const valid = validateApplicationInput(input.type, input);
    // Absent or null: no expiry. Any string, the empty one included, must be a future date (as on tokens and sessions).
    const expiresAt = input.expiresAt === undefined || input.expiresAt === null ? undefined : futureDate('expires_at', input.expiresAt, now);
    const application: Application = {
      id: this.deps.ids.next(),
      tenantId,
      name: valid.name,
      type: input.type,
      permissions: valid.permissions,
      rules: valid.rules,
      createdBy,
      createdAt: now,
      expiresAt,
    };
    const issued = withKey ? issueApplicationKey(this.deps, application, createdBy, presetKey) : undefined;
    const effects = auditOf(this.deps).write(by, now, applicationFact(application.id, 'create', 'Application created'), [
      { type: 'application.created', data: applicationHookData(application) },
    ]);
    const created: CreatedApplication = { application, key: issued?.plaintext };
    await this.deps.applications.create(application, issued?.key, await keptWith(effects, keep, created));
    return created;
  }
}
