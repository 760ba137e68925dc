import type { Permission } from './permissions';

export const TRANSFORMS = ['redact', 'mask', 'reveal'] as const;
/** How token data appears in a response: removed, masked, or in plaintext. */
export type Transform = (typeof TRANSFORMS)[number];

export const CONDITION_ATTRIBUTES = ['id', 'container'] as const;
export const CONDITION_OPERATORS = ['equals', 'starts_with'] as const;

/** A session rule condition, compared with the token's id or each of its containers. */
export interface Condition {
  readonly attribute: (typeof CONDITION_ATTRIBUTES)[number];
  readonly operator: (typeof CONDITION_OPERATORS)[number];
  readonly value: string;
}

/**
 * An access rule. Applications scope rules by `container` (the container and everything below it);
 * sessions scope them by `conditions` (ANDed). Lower `priority` is evaluated first.
 */
export interface AccessRule {
  readonly description?: string;
  readonly priority: number;
  readonly container?: string;
  readonly conditions?: readonly Condition[];
  readonly transform: Transform;
  readonly permissions: readonly Permission[];
}

/** How much of a token's data a transform shows: nothing of a token not shown at all (undefined) ranks lowest. */
export function transformRank(transform: Transform | undefined): number {
  return transform === undefined ? -1 : TRANSFORMS.indexOf(transform);
}

export function isTransform(value: string): value is Transform {
  return (TRANSFORMS as readonly string[]).includes(value);
}

/** Rules in evaluation order. */
export function byPriority(rules: readonly AccessRule[]): AccessRule[] {
  return [...rules].sort((a, b) => a.priority - b.priority);
}
