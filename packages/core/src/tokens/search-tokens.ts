import { ValidationError } from '../shared/errors';
import { mapPage, type Page, pageOf, pageRequest } from '../shared/pagination';
import { requireTokenPermission, transformFor } from '../access/evaluate-access';
import type { Permission } from '../access/permissions';
import type { Actor } from '../auth/actor';
import { accessScope, andAll } from '../search/access-scope';
import { blindQuery } from '../search/blind-query';
import { parseTokenQuery } from '../search/parse-query';
import type { TokenQuery } from '../search/token-query';
import type { TenantKeys } from '../crypto/tenant-keys';
import type { StoredToken } from './token';
import type { TokenDeps } from './token-deps';
import { openToken } from './token-sealing';
import { type TokenView, viewToken } from './token-view';
import { auditOf } from '../audit/audit';
import { auditedQueryText } from '../search/query-text';

/** Runs a query within the caller's access scope and shows each result per the caller's transform. */
async function findTokens(
  deps: TokenDeps,
  actor: Actor,
  permission: Permission,
  query: TokenQuery,
  page: number | undefined,
  size: number | undefined,
): Promise<Page<TokenView>> {
  const request = pageRequest(page, size);
  const scope = accessScope(actor, permission);
  const now = deps.clock.now();
  recordSearch(deps, actor, permission, query, now);
  if (!scope) return pageOf([], 0, request);
  const keys = await deps.keyring.forTenant(actor.tenantId);
  const found = await deps.tokens.search(actor.tenantId, blindQuery(andAll([query, scope]), keys), request, now);
  return mapPage(found, showFound(deps, actor, permission, keys, now));
}

/** A search (`token:search`) or a list (`token:read`) as one event, its data values as `***`. */
export function recordSearch(deps: TokenDeps, actor: Actor, permission: Permission, query: TokenQuery, now: Date): void {
  const search = permission === 'token:search';
  const message = `${search ? 'Tokens searched' : 'Tokens listed'}: ${auditedQueryText(query)}`;
  auditOf(deps).record(actor, now, { entityType: 'token', operation: search ? 'search' : 'read', message });
}

/**
 * Shows each token a list or search found as the caller may see it: its transform for `permission`, redact without
 * one. A token shown with its data revealed is recorded as a `reveal` of that token (beyond.md §5: reads that return
 * plaintext record `reveal`), beside the list's or search's own event.
 */
export function showFound(deps: TokenDeps, actor: Actor, permission: Permission, keys: TenantKeys, now: Date): (stored: StoredToken) => TokenView {
  const message = permission === 'token:search' ? 'Token revealed by a search' : 'Token revealed in a list';
  return (stored) => {
    const transform = transformFor(actor, permission, stored) ?? 'redact';
    if (transform === 'redact') return { token: stored, hasData: false };
    if (transform === 'reveal') auditOf(deps).record(actor, now, { entityType: 'token', entityId: stored.id, operation: 'reveal', message });
    return viewToken(deps.expressions, openToken(keys, stored), transform, deps.policy, now);
  };
}

export interface SearchTokensInput {
  readonly query?: string | null | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

const PARSED_QUERIES = 500;

/** Parsed queries by text: the same searches come back (pollers, dashboards, page walks), and a TokenQuery is immutable. */
export class ParsedQueries {
  private readonly parsed = new Map<string, TokenQuery>();

  parse(text: string): TokenQuery {
    let query = this.parsed.get(text);
    if (!query) {
      query = parseTokenQuery(text);
      if (this.parsed.size >= PARSED_QUERIES) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(text, query);
    }
    return query;
  }
}

/** POST /tokens/search. */
export class SearchTokens {
  private readonly queries = new ParsedQueries();

  constructor(private readonly deps: TokenDeps) {}

  execute(actor: Actor, input: SearchTokensInput): Promise<Page<TokenView>> {
    requireTokenPermission(actor, 'token:search');
    return findTokens(this.deps, actor, 'token:search', this.queries.parse(input.query ?? ''), input.page, input.size);
  }
}

export interface ListTokensInput {
  readonly ids?: readonly string[] | undefined;
  readonly types?: readonly string[] | undefined;
  /** Key to value; matched case-insensitively and exactly, all of them. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

/** The most values one repeated filter of GET /tokens may list (a page holds at most 100 tokens anyway). */
export const MAX_FILTER_VALUES = 100;

/**
 * At most {@link MAX_FILTER_VALUES} metadata filters: each one is one more condition of the store's query, and SQLite
 * refuses a query nested deeper than 1,000 (a thousand filters fit in a URL, and were a 500).
 */
export function limitMetadataFilters(metadata: Readonly<Record<string, string>> | undefined): void {
  if (Object.keys(metadata ?? {}).length > MAX_FILTER_VALUES) throw ValidationError.field('metadata', `At most ${MAX_FILTER_VALUES} metadata filters.`);
}

const anyOf = (items: TokenQuery[]): TokenQuery => (items.length === 1 ? items[0]! : { kind: 'or', items });

/** GET /tokens: by ids, types and metadata, ANDed. */
export class ListTokens {
  constructor(private readonly deps: TokenDeps) {}

  execute(actor: Actor, input: ListTokensInput): Promise<Page<TokenView>> {
    requireTokenPermission(actor, 'token:read');
    if ((input.ids?.length ?? 0) > MAX_FILTER_VALUES) throw ValidationError.field('id', `At most ${MAX_FILTER_VALUES} ids.`);
    if ((input.types?.length ?? 0) > MAX_FILTER_VALUES) throw ValidationError.field('type', `At most ${MAX_FILTER_VALUES} types.`);
    limitMetadataFilters(input.metadata);
    const parts: TokenQuery[] = [];
    if (input.ids?.length) parts.push(anyOf(input.ids.map((value) => ({ kind: 'term', field: 'id', value }))));
    if (input.types?.length) parts.push(anyOf(input.types.map((value) => ({ kind: 'term', field: 'type', value }))));
    for (const [key, value] of Object.entries(input.metadata ?? {})) {
      parts.push({ kind: 'metadata', key: key.toLowerCase(), value: value.toLowerCase() });
    }
    return findTokens(this.deps, actor, 'token:read', andAll(parts), input.page, input.size);
  }
}
