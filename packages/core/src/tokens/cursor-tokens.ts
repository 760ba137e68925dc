import { requireTokenPermission } from '../access/evaluate-access';
import type { Permission } from '../access/permissions';
import type { Actor } from '../auth/actor';
import { accessScope, andAll } from '../search/access-scope';
import { blindQuery } from '../search/blind-query';
import { containerPath } from '../search/query-values';
import type { TokenQuery } from '../search/token-query';
import { type FieldErrors, ValidationError } from '../shared/errors';
import { keysetSize } from '../shared/keyset';
import { type CursorBinding, decodeTokenCursor, encodeTokenCursor } from './token-cursor';
import type { TokenDeps } from './token-deps';
import { limitMetadataFilters, MAX_FILTER_VALUES, ParsedQueries, recordSearch, showFound } from './search-tokens';
import type { TokenView } from './token-view';

/** One page of a cursor walk: `next` resumes after its last token, and is absent on the last page. */
export interface CursorPage<T> {
  readonly items: readonly T[];
  /** The page size in force (the requested one, or the default). */
  readonly size: number;
  readonly next?: string;
}

interface CursorInput {
  readonly start?: string | undefined;
  readonly size?: number | undefined;
}

/** Runs the errors of every check, so one 400 names both `size` and `start` when both are wrong. */
function checked<T>(errors: Record<string, readonly string[]>, check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    Object.assign(errors, error.errors);
    return undefined;
  }
}

/** Walks `query` within the caller's access scope from the cursor `start`, showing each token per the caller's transform. */
async function walkTokens(deps: TokenDeps, actor: Actor, permission: Permission, query: TokenQuery, binding: CursorBinding, input: CursorInput): Promise<CursorPage<TokenView>> {
  const keys = await deps.keyring.forTenant(actor.tenantId);
  const errors: Record<string, readonly string[]> = {};
  const size = checked(errors, () => keysetSize(input.size));
  const after = input.start === undefined ? undefined : checked(errors, () => decodeTokenCursor(keys, binding, input.start!));
  if (Object.keys(errors).length > 0 || size === undefined) throw new ValidationError(errors as FieldErrors);
  const scope = accessScope(actor, permission);
  const now = deps.clock.now();
  recordSearch(deps, actor, permission, query, now);
  if (!scope) return { items: [], size };
  const found = await deps.tokens.searchAfter(actor.tenantId, blindQuery(andAll([query, scope]), keys), { after, size }, now);
  const last = found.items[found.items.length - 1];
  const next = found.hasMore && last ? encodeTokenCursor(keys, binding, { createdAt: last.createdAt, id: last.id }) : undefined;
  return { items: found.items.map(showFound(deps, actor, permission, keys, now)), size, ...(next === undefined ? {} : { next }) };
}

export interface ListTokensByCursorInput extends CursorInput {
  readonly types?: readonly string[] | undefined;
  /** A container path: tokens directly in it, or, written `/pci/*`, in it and every container below it. */
  readonly container?: string | undefined;
  readonly fingerprint?: string | undefined;
  /** Key to value; matched case-insensitively and exactly, all of them. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

const anyOf = (items: TokenQuery[]): TokenQuery => (items.length === 1 ? items[0]! : { kind: 'or', items });
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function containerFilter(value: string): TokenQuery {
  const prefix = value.endsWith('/*');
  const path = containerPath(prefix ? value.slice(0, -1) : value);
  if (path === undefined) throw ValidationError.field('container', 'Use a container path such as /pci/high/, or /pci/* for /pci/ and every container below it.');
  return { kind: 'container', path, prefix };
}

/**
 * The filters as one query, in a canonical order (types and metadata keys sorted, metadata lower-cased), so that a
 * cursor stays valid for the same filters written in another order.
 */
function listQuery(input: ListTokensByCursorInput): TokenQuery {
  if ((input.types?.length ?? 0) > MAX_FILTER_VALUES) throw ValidationError.field('type', `At most ${MAX_FILTER_VALUES} types.`);
  limitMetadataFilters(input.metadata);
  const parts: TokenQuery[] = [];
  const types = [...new Set(input.types ?? [])].sort(byText);
  if (types.length) parts.push(anyOf(types.map((value) => ({ kind: 'term', field: 'type', value }))));
  if (input.container !== undefined) parts.push(containerFilter(input.container));
  if (input.fingerprint !== undefined) parts.push({ kind: 'term', field: 'fingerprint', value: input.fingerprint });
  const metadata = Object.entries(input.metadata ?? {}).map(([key, value]) => [key.toLowerCase(), value.toLowerCase()] as const);
  for (const [key, value] of metadata.sort(([a], [b]) => byText(a, b))) parts.push({ kind: 'metadata', key, value });
  return andAll(parts);
}

/** GET /v2/tokens: by types, container, fingerprint and metadata, ANDed, a cursor page at a time. */
export class ListTokensByCursor {
  constructor(private readonly deps: TokenDeps) {}

  execute(actor: Actor, input: ListTokensByCursorInput): Promise<CursorPage<TokenView>> {
    requireTokenPermission(actor, 'token:read');
    const query = listQuery(input);
    return walkTokens(this.deps, actor, 'token:read', query, { operation: 'list', query: JSON.stringify(query) }, input);
  }
}

export interface SearchTokensByCursorInput extends CursorInput {
  readonly query?: string | null | undefined;
}

/** POST /v2/tokens/search: the query language of POST /tokens/search, a cursor page at a time. */
export class SearchTokensByCursor {
  private readonly queries = new ParsedQueries();

  constructor(private readonly deps: TokenDeps) {}

  execute(actor: Actor, input: SearchTokensByCursorInput): Promise<CursorPage<TokenView>> {
    requireTokenPermission(actor, 'token:search');
    const query = this.queries.parse(input.query ?? '');
    return walkTokens(this.deps, actor, 'token:search', query, { operation: 'search', query: JSON.stringify(query) }, input);
  }
}
