import type { AccessRule, Condition } from '../access/access-rule';
import type { Permission } from '../access/permissions';
import type { Actor } from '../auth/actor';
import type { TokenQuery } from './token-query';

const ALL: TokenQuery = { kind: 'all' };

/** AND that drops `all` items; `all` when nothing is left. */
export function andAll(items: readonly TokenQuery[]): TokenQuery {
  const kept = items.filter((q) => q.kind !== 'all').flatMap((q) => (q.kind === 'and' ? q.items : [q]));
  if (kept.length === 0) return ALL;
  return kept.length === 1 ? kept[0]! : { kind: 'and', items: kept };
}

function conditionQuery(condition: Condition): TokenQuery {
  if (condition.attribute === 'id') {
    return condition.operator === 'equals' ? { kind: 'term', field: 'id', value: condition.value } : { kind: 'id_prefix', value: condition.value };
  }
  return { kind: 'container', path: condition.value, prefix: condition.operator === 'starts_with' };
}

function ruleQuery(rule: AccessRule): TokenQuery {
  if (rule.conditions) return andAll(rule.conditions.map(conditionQuery));
  return { kind: 'container', path: rule.container ?? '/', prefix: true };
}

/**
 * The tokens an actor may touch with `permission`, as a query the store applies with the caller's own, so that
 * lists, searches and their totals never include what the caller could not read one by one. Undefined: nothing.
 */
export function accessScope(actor: Actor, permission: Permission): TokenQuery | undefined {
  if (!actor.authorized) return undefined;
  if (actor.rules.length === 0) return actor.permissions.includes(permission) ? ALL : undefined;
  const granting = actor.rules.filter((r) => r.permissions.includes(permission));
  if (granting.length === 0) return undefined;
  const scopes = granting.map(ruleQuery);
  if (scopes.some((s) => s.kind === 'all')) return ALL;
  return scopes.length === 1 ? scopes[0]! : { kind: 'or', items: scopes };
}
