import { ValidationError } from '../shared/errors';
import { normalizeContainer } from '../shared/container';
import {
  type AccessRule,
  type Condition,
  CONDITION_ATTRIBUTES,
  CONDITION_OPERATORS,
  isTransform,
} from './access-rule';
import { isPermission, type Permission } from './permissions';

/** A rule as it arrives from a request, before its business rules are checked. */
export interface RuleInput {
  readonly description?: string | undefined;
  readonly priority: number;
  readonly container?: string | undefined;
  readonly conditions?: readonly { attribute: string; operator: string; value: string }[] | undefined;
  readonly transform: string;
  readonly permissions: readonly string[];
}

/** Where rules are owned: applications scope by container, sessions by conditions. */
export type RuleOwner = 'application' | 'session';

type Errors = Record<string, string[]>;

function add(errors: Errors, path: string, message: string): void {
  (errors[path] ??= []).push(message);
}

/**
 * Checks a rule list and returns it normalized (containers lower-cased with slashes), or throws a
 * ValidationError naming every offending field (`rules[0].container`).
 */
export function validateRules(
  inputs: readonly RuleInput[],
  owner: RuleOwner,
  allowed: readonly Permission[],
  errors: Errors = {},
): AccessRule[] {
  const seen = new Set<number>();
  const rules = inputs.map((input, i): AccessRule => {
    const at = `rules[${i}]`;
    if (!Number.isInteger(input.priority) || input.priority < 1) add(errors, `${at}.priority`, 'Priority must be an integer of at least 1.');
    else if (seen.has(input.priority)) add(errors, `${at}.priority`, 'Priority must be unique among the rules.');
    seen.add(input.priority);
    if (!isTransform(input.transform)) add(errors, `${at}.transform`, 'Transform must be one of redact, mask, reveal.');
    if (input.permissions.length === 0) add(errors, `${at}.permissions`, 'A rule must grant at least one permission.');
    input.permissions.forEach((p, j) => {
      if (!isPermission(p)) add(errors, `${at}.permissions[${j}]`, `Unknown permission '${p}'.`);
      else if (!allowed.includes(p)) add(errors, `${at}.permissions[${j}]`, `Permission '${p}' is not valid here.`);
    });
    const container = owner === 'application' ? ruleContainer(input, at, errors) : undefined;
    const conditions = owner === 'session' ? ruleConditions(input, at, errors) : undefined;
    return {
      ...(input.description !== undefined ? { description: input.description } : {}),
      priority: input.priority,
      ...(container !== undefined ? { container } : {}),
      ...(conditions !== undefined ? { conditions } : {}),
      transform: input.transform as AccessRule['transform'],
      permissions: input.permissions as Permission[],
    };
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return rules;
}

function ruleContainer(input: RuleInput, at: string, errors: Errors): string | undefined {
  if (input.conditions !== undefined) add(errors, `${at}.conditions`, 'Conditions apply only to session rules.');
  if (input.container === undefined) {
    add(errors, `${at}.container`, 'A container is required.');
    return undefined;
  }
  const container = normalizeContainer(input.container);
  if (!container) add(errors, `${at}.container`, 'Container must be a path like /pci/high/.');
  return container;
}

function ruleConditions(input: RuleInput, at: string, errors: Errors): Condition[] | undefined {
  if (input.container !== undefined) add(errors, `${at}.container`, 'Session rules are scoped by conditions, not containers.');
  if (!input.conditions || input.conditions.length === 0) {
    add(errors, `${at}.conditions`, 'At least one condition is required.');
    return undefined;
  }
  return input.conditions.map((c, j) => {
    const cat = `${at}.conditions[${j}]`;
    if (!(CONDITION_ATTRIBUTES as readonly string[]).includes(c.attribute)) add(errors, `${cat}.attribute`, 'Attribute must be id or container.');
    if (!(CONDITION_OPERATORS as readonly string[]).includes(c.operator)) add(errors, `${cat}.operator`, 'Operator must be equals or starts_with.');
    if (c.value.length === 0) add(errors, `${cat}.value`, 'A condition needs a value.');
    if (c.attribute !== 'container' || c.value.length === 0) return c as Condition;
    // Containers are stored lower-cased with slashes at both ends: a container condition is read the same way, so
    // `equals "/PCI"` names the container `/pci/`, as an application rule's `/PCI` does. `starts_with` keeps its prefix
    // as written but lower-cased (`/pci` still matches `/pci-archive/`, as a prefix does).
    if (c.operator === 'equals') {
      const container = normalizeContainer(c.value);
      if (container === undefined) add(errors, `${cat}.value`, 'A container is /-separated segments of letters, digits, _ and -.');
      return { ...c, value: container ?? c.value } as Condition;
    }
    return { ...c, value: c.value.toLowerCase() } as Condition;
  });
}
