import type { AccessRule, Condition, Transform } from '../access/access-rule';
import { byPriority, transformRank } from '../access/access-rule';
import { isTokenPermission, type Permission } from '../access/permissions';

/** What a key holds of token access, as its permissions and rules. */
export interface TokenAccess {
  readonly permissions: readonly Permission[];
  readonly rules: readonly AccessRule[];
}

const least = (a: Transform, b: Transform): Transform => (transformRank(a) <= transformRank(b) ? a : b);

/**
 * Access as rules, in evaluation order: plain token permissions are one rule over every token (every container
 * starts with `/`), revealing with `token:use`, masking without; `token:use` itself is what `reveal` means in a rule.
 */
function asRules(access: TokenAccess): AccessRule[] {
  if (access.rules.length > 0) return byPriority(access.rules);
  const permissions = access.permissions.filter((p) => isTokenPermission(p) && p !== 'token:use');
  if (permissions.length === 0) return [];
  return [{ priority: 1, conditions: [], transform: access.permissions.includes('token:use') ? 'reveal' : 'mask', permissions }];
}

/** A rule's scope as session conditions (ANDed): a container rule covers every container that starts with it. */
function conditionsOf(rule: AccessRule): Condition[] {
  if (rule.conditions) return [...rule.conditions];
  return rule.container ? [{ attribute: 'container', operator: 'starts_with', value: rule.container }] : [];
}

/**
 * A session's grant bounded by its authorizer's own access, token by token: the rules returned give, for every token
 * and token permission, the lesser of what the grant gives and what the authorizer has there, and nothing where
 * either has nothing. A backend that masks cards cannot hand a browser their plaintext, nor reach through a session a
 * container it cannot read itself.
 *
 * How: for each grant rule in order, each authorizer rule in order, one rule with both scopes (their conditions
 * ANDed), the permissions both give and the lesser transform, in that (grant, authorizer) order. For a token and a
 * permission, the first of them that matches pairs the grant's first rule deciding there with the authorizer's first
 * rule deciding there (a grant rule the authorizer has nothing for matches no pair, and no later grant rule can
 * either, for the same reason), which is exactly the two decisions to combine. Token permissions move into these
 * rules; the grant's other permissions (`token:intent:create`) stay plain.
 */
export function boundByAuthorizer(grant: TokenAccess, authorizer: TokenAccess): TokenAccess {
  const authorizerRules = asRules(authorizer);
  const rules: AccessRule[] = [];
  for (const granted of asRules(grant)) {
    for (const held of authorizerRules) {
      const permissions = granted.permissions.filter((p) => held.permissions.includes(p));
      if (permissions.length === 0) continue;
      rules.push({
        ...(granted.description === undefined ? {} : { description: granted.description }),
        priority: rules.length + 1,
        conditions: [...conditionsOf(granted), ...conditionsOf(held)],
        transform: least(granted.transform, held.transform),
        permissions,
      });
    }
  }
  return { permissions: grant.permissions.filter((p) => !isTokenPermission(p)), rules };
}
