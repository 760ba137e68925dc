import { characterCount } from '../shared/text';
import { ValidationError } from '../shared/errors';
import type { AccessRule } from '../access/access-rule';
import { isPermission, isTokenPermission, PERMISSIONS_BY_TYPE, type ApplicationType, type Permission } from '../access/permissions';
import { type RuleInput, validateRules } from '../access/rule-validation';

export const MAX_APPLICATION_NAME = 200;

export interface ApplicationInput {
  readonly name: string;
  readonly permissions?: readonly string[] | undefined;
  readonly rules?: readonly RuleInput[] | undefined;
}

export interface ValidApplicationInput {
  readonly name: string;
  readonly permissions: Permission[];
  readonly rules: AccessRule[];
}

/**
 * The business rules of an application's name, permissions and rules for its type: permissions must fit the
 * type, rules exist only on public and private applications and need a container, and at least one of
 * permissions or rules is given.
 */
export function validateApplicationInput(type: ApplicationType, input: ApplicationInput): ValidApplicationInput {
  const errors: Record<string, string[]> = {};
  const name = input.name.trim();
  if (name.length === 0) errors.name = ['Name is required.'];
  else if (characterCount(name) > MAX_APPLICATION_NAME) errors.name = [`Name must be at most ${MAX_APPLICATION_NAME} characters.`];
  const permissions = input.permissions ?? [];
  const rules = input.rules ?? [];
  const allowed = PERMISSIONS_BY_TYPE[type];
  permissions.forEach((p, i) => {
    if (!isPermission(p)) errors[`permissions[${i}]`] = [`Unknown permission '${p}'.`];
    else if (!allowed.includes(p)) errors[`permissions[${i}]`] = [`Permission '${p}' is not valid for a ${type} application.`];
  });
  if (permissions.length === 0 && rules.length === 0) {
    errors.permissions = ['Either permissions or rules must be non-empty.'];
  }
  if (type === 'management' && rules.length > 0) {
    errors.rules = ['Management applications cannot have access rules.'];
    throw new ValidationError(errors);
  }
  // Rules decide token access alone (decisions.md §4): a rule granting a session, intent or proxy permission would be
  // stored and grant nothing, as the key's plain permissions are what those operations check.
  const validRules = validateRules(rules, 'application', allowed.filter(isTokenPermission), errors);
  return { name, permissions: [...new Set(permissions)] as Permission[], rules: validRules };
}
