import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import { type Audit, auditOf } from '../audit/audit';
import type { Clock } from '../shared/clock';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors';
import type { AccessRule } from '../access/access-rule';
import { mayEverDo } from '../access/evaluate-access';
import { parseIsoDate } from '../shared/dates';
import type { IdGenerator } from '../shared/ids';
import type { RandomSource } from '../shared/random';
import { isPermission, isTokenPermission, TOKEN_PERMISSIONS, type Permission } from '../access/permissions';
import { type RuleInput, validateRules } from '../access/rule-validation';
import type { Actor } from '../auth/actor';
import { generateKey, generateSecret, hashKey } from '../auth/api-key';
import { requirePermission } from '../auth/authorize';
import { isSessionExpired, type Session, type SessionRepository } from './session';
import { boundByAuthorizer } from './session-bounds';

/** Default session lifetime: 3 minutes. */
export const SESSION_LIFETIME_MS = 3 * 60_000;
/** The furthest an authorization may push a session's end: 24 hours. */
export const MAX_SESSION_LIFETIME_MS = 24 * 3_600_000;

/**
 * What a session may be granted as plain permissions: the token permissions, and `token:intent:create` (the one
 * intent permission of public applications), so a browser can collect card data as a token intent.
 */
export const SESSION_PERMISSIONS: readonly Permission[] = [...TOKEN_PERMISSIONS, 'token:intent:create'];

export interface SessionDeps {
  readonly sessions: SessionRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: RandomSource;
  /** Records what callers do (ADR 4); absent in unit tests of other rules. */
  readonly audit?: Audit | undefined;
}

/** What POST /sessions returns; both secrets are shown only here. */
export interface CreatedSession {
  readonly sessionKey: string;
  readonly nonce: string;
  readonly expiresAt: Date;
}

/** POST /sessions: a public application opens a session with no access. */
export class CreateSession {
  constructor(private readonly deps: SessionDeps) {}

  /** `keep`: seals the answer for an idempotency key, kept in the session's own write. */
  async execute(actor: Actor, keep?: KeepAnswer<CreatedSession>): Promise<CreatedSession> {
    requirePermission(actor, 'session:create');
    const now = this.deps.clock.now();
    const key = generateKey('ses', this.deps.random);
    const nonce = generateSecret(this.deps.random);
    const session: Session = {
      id: this.deps.ids.next(),
      tenantId: actor.tenantId,
      applicationId: actor.applicationId,
      keyHash: key.hash,
      nonceHash: hashKey(nonce),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
      permissions: [],
      rules: [],
    };
    const effects = auditOf(this.deps).write(actor, now, { entityType: 'session', entityId: session.id, operation: 'create', message: 'Session created' });
    const created = { sessionKey: key.plaintext, nonce, expiresAt: session.expiresAt };
    await this.deps.sessions.create(session, await keptWith(effects, keep, created));
    return created;
  }
}

export interface AuthorizeSessionInput {
  readonly nonce: string;
  readonly permissions?: readonly string[] | undefined;
  readonly rules?: readonly RuleInput[] | undefined;
  readonly expiresAt?: string | undefined;
}

/** POST /sessions/authorize: a backend of the same tenant grants the session its access, once. */
export class AuthorizeSession {
  constructor(private readonly deps: SessionDeps) {}

  /** `keep`: the (empty) answer is kept with the authorization (an idempotency key's, see KeepAnswer). */
  async execute(actor: Actor, input: AuthorizeSessionInput, keep?: KeepAnswer<void>): Promise<void> {
    requirePermission(actor, 'session:authorize');
    const now = this.deps.clock.now();
    const permissions = validatePermissions(input.permissions ?? []);
    const rules = validateRules(input.rules ?? [], 'session', TOKEN_PERMISSIONS);
    if (permissions.length === 0 && rules.length === 0) {
      throw ValidationError.field('permissions', 'Either permissions or rules must be non-empty.');
    }
    requireWithinOwnAccess(actor, permissions, rules);
    const session = await this.deps.sessions.findByNonceHash(hashKey(input.nonce));
    if (!session || session.tenantId !== actor.tenantId || isSessionExpired(session, now)) {
      throw new NotFoundError('session');
    }
    if (session.authorizedAt) throw new ConflictError('NONCE_USED', 'The nonce has already been used.');
    const expiresAt = input.expiresAt === undefined ? session.expiresAt : sessionEnd(input.expiresAt, now);
    const effects = auditOf(this.deps).write(actor, now, { entityType: 'session', entityId: session.id, operation: 'authorize', message: 'Session authorized' });
    // What the session gets is also bounded token by token by what this key has (see boundByAuthorizer).
    const bounded = boundByAuthorizer({ permissions, rules }, actor);
    const granted = await this.deps.sessions.authorize(
      session.tenantId,
      session.id,
      { permissions: bounded.permissions, rules: bounded.rules, expiresAt, authorizedAt: now },
      await keptWith(effects, keep, undefined),
    );
    if (!granted) throw new ConflictError('NONCE_USED', 'The nonce has already been used.');
  }
}

/**
 * A backend cannot hand a browser more than it holds: every granted permission must be one the authorizer may use
 * somewhere, and revealing (a `reveal` rule, or `token:use`) needs the authorizer to be able to reveal.
 */
function requireWithinOwnAccess(actor: Actor, permissions: readonly Permission[], rules: readonly AccessRule[]): void {
  const granted = new Set<Permission>([...permissions, ...rules.flatMap((r) => r.permissions)]);
  for (const permission of granted) {
    // Token access may come from rules; any other permission only from the authorizer's own plain permissions.
    const holds = isTokenPermission(permission) ? mayEverDo(actor, permission) : actor.permissions.includes(permission);
    if (!holds) throw new ForbiddenError(`A session cannot be granted '${permission}': the authorizing key does not hold it.`);
  }
  const grantsReveal = permissions.includes('token:use') || rules.some((r) => r.transform === 'reveal');
  const canReveal = actor.rules.length > 0 ? actor.rules.some((r) => r.transform === 'reveal') : actor.permissions.includes('token:use');
  if (grantsReveal && !canReveal) throw new ForbiddenError('A session cannot be granted reveal access: the authorizing key cannot reveal.');
}

function validatePermissions(values: readonly string[]): Permission[] {
  const errors: Record<string, string[]> = {};
  values.forEach((p, i) => {
    if (!isPermission(p)) errors[`permissions[${i}]`] = [`Unknown permission '${p}'.`];
    else if (!SESSION_PERMISSIONS.includes(p)) errors[`permissions[${i}]`] = [`Permission '${p}' cannot be granted to a session.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return [...new Set(values)] as Permission[];
}

function sessionEnd(value: string, now: Date): Date {
  const date = parseIsoDate(value);
  if (!date) throw ValidationError.field('expires_at', 'Must be an ISO 8601 date-time.');
  if (date.getTime() <= now.getTime()) throw ValidationError.field('expires_at', 'Must be in the future.');
  if (date.getTime() > now.getTime() + MAX_SESSION_LIFETIME_MS) throw ValidationError.field('expires_at', 'Must be at most 24 hours away.');
  return date;
}
