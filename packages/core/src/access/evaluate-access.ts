import { ForbiddenError } from '../shared/errors';
import { isWithinContainer } from '../shared/container';
import type { Actor } from '../auth/actor';
import { type AccessRule, byPriority, type Condition, type Transform } from './access-rule';
import type { Permission } from './permissions';

/** What a rule is matched against: a token's id and containers. */
export interface TokenScope {
  readonly id: string;
  readonly containers: readonly string[];
}

function conditionHolds(condition: Condition, token: TokenScope): boolean {
  const values = condition.attribute === 'id' ? [token.id] : token.containers;
  return values.some((v) => (condition.operator === 'equals' ? v === condition.value : v.startsWith(condition.value)));
}

/** A container rule covers its container and everything below it; a session rule needs all its conditions. */
export function ruleMatches(rule: AccessRule, token: TokenScope): boolean {
  if (rule.conditions) return rule.conditions.every((c) => conditionHolds(c, token));
  if (rule.container) return token.containers.some((c) => isWithinContainer(c, rule.container!));
  return false;
}

/**
 * The transform an operation gets on a token, or undefined when the caller may not perform it there.
 * With rules: the first rule by priority that matches the token and grants the permission decides. Without rules:
 * a plain permission grants every container, masked, unless the caller holds `token:use`, which reveals.
 */
export function transformFor(actor: Actor, permission: Permission, token: TokenScope): Transform | undefined {
  if (!actor.authorized) return undefined;
  if (actor.rules.length > 0) {
    for (const rule of byPriority(actor.rules)) {
      if (rule.permissions.includes(permission) && ruleMatches(rule, token)) return rule.transform;
    }
    return undefined;
  }
  if (!actor.permissions.includes(permission)) return undefined;
  return actor.permissions.includes('token:use') ? 'reveal' : 'mask';
}

/** True when the caller could perform `permission` on some token: checked before a request body is read. */
export function mayEverDo(actor: Actor, permission: Permission): boolean {
  if (!actor.authorized) return false;
  if (actor.rules.length > 0) return actor.rules.some((r) => r.permissions.includes(permission));
  return actor.permissions.includes(permission);
}

export function requireTokenPermission(actor: Actor, permission: Permission): void {
  if (!actor.authorized) throw new ForbiddenError('The session has not been authorized.');
  if (!mayEverDo(actor, permission)) throw new ForbiddenError(`The API key lacks the '${permission}' permission.`);
}

/** The transform for one token, or a 403 when no rule or permission grants the operation on it. */
export function requireTransform(actor: Actor, permission: Permission, token: TokenScope): Transform {
  const transform = transformFor(actor, permission, token);
  if (!transform) throw new ForbiddenError(`No access rule grants '${permission}' on this token.`);
  return transform;
}
