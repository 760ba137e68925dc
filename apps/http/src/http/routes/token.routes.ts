import { fieldPath, isTokenTypeName, isWellFormedText, type UpdateTokenInput, ValidationError } from '@svc/core';
import type { IRouter, RequestHandler } from 'express';
import type { TokenUseCases } from '../../container';
import { actorOf, requiresToken } from '../authenticate';
import { presentToken } from '../presenters/token.presenter';
import { createTokenInput, createTokenSchema, listTokensQuery, searchTokensSchema, updateTokenSchema } from '../schemas/token.schemas';
import { presentPage } from '../presenters/pagination';
import { sendJson } from '../respond';
import { keepWithWrite } from '../idempotency';
import { validate } from '../validate';

/**
 * A list's query may hold only the parameters it reads (decisions.md §1: unknown fields are a 400), besides `metadata`
 * and `metadata.<key>`: a filter the list does not know (`?container=` on /tokens, `?page=` on /v2/tokens) was
 * dropped silently, and the answer held every token.
 */
export function onlyKnownParameters(query: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(query).filter((name) => !known.includes(name) && name !== 'metadata' && !name.startsWith('metadata.'));
  if (unknown.length > 0) {
    throw new ValidationError(Object.fromEntries(unknown.map((name) => [fieldPath([name]), [`Unknown parameter: this list is filtered by ${known.filter((k) => k !== 'page' && k !== 'size' && k !== 'start').join(', ')} and metadata.`]])));
  }
}

/** `?metadata.key1=value1&metadata.key2=value2`: keys are unique, and a repeated key keeps its first value. */
export function metadataFilters(query: Record<string, unknown>): Record<string, string> {
  const filters = Object.create(null) as Record<string, string>;
  // Basis Theory's SDKs send the filter as one JSON object: `?metadata={"key":"value"}`.
  if (query.metadata !== undefined) Object.assign(filters, metadataJson(query.metadata));
  for (const [name, value] of Object.entries(query)) {
    if (!name.startsWith('metadata.')) continue;
    const key = name.slice('metadata.'.length).toLowerCase();
    const first = Array.isArray(value) ? value[0] : value;
    if (key === '' || typeof first !== 'string') throw ValidationError.field(name, 'Metadata filters are metadata.<key>=<value>.');
    if (!(key in filters)) filters[key] = first;
  }
  return filters;
}

function metadataJson(raw: unknown): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = typeof raw === 'string' ? JSON.parse(raw) : undefined;
  } catch {
    parsed = undefined;
  }
  const ok =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.entries(parsed).every(([k, v]) => typeof v === 'string' && isWellFormedText(k) && isWellFormedText(v));
  if (!ok) throw ValidationError.field('metadata', 'Use metadata.<key>=<value>, or metadata={"key":"value"} (a JSON object of strings).');
  return Object.fromEntries(Object.entries(parsed as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
}

const has = (body: object, key: string): boolean => Object.prototype.hasOwnProperty.call(body, key);

/** The body parsers of the token routes: `readJson` for the search, which only reads (see idempotency.ts). */
export interface TokenBodyParsers {
  readonly json: RequestHandler;
  readonly readJson: RequestHandler;
  readonly mergePatchJson: RequestHandler;
}

export function tokenRoutes(router: IRouter, auth: RequestHandler, useCases: TokenUseCases, parsers: TokenBodyParsers): void {
  const { json, readJson, mergePatchJson } = parsers;
  router.post('/tokens', auth, requiresToken('token:create'), json, async (req, res) => {
    const body = validate(createTokenSchema, req.body);
    const view = await useCases.create.execute(actorOf(res), createTokenInput(body), keepWithWrite(res, 201, presentToken));
    sendJson(res, 201, presentToken(view));
  });

  router.post('/tokens/search', auth, requiresToken('token:search'), readJson, async (req, res) => {
    const body = validate(searchTokensSchema, req.body ?? {});
    const page = await useCases.search.execute(actorOf(res), body);
    sendJson(res, 200, presentPage(page, presentToken));
  });

  router.get('/tokens', auth, requiresToken('token:read'), async (req, res) => {
    onlyKnownParameters(req.query, ['id', 'type', 'page', 'size']);
    const query = validate(listTokensQuery, req.query);
    query.type?.forEach((type, i) => {
      if (!isTokenTypeName(type)) throw ValidationError.field(query.type!.length > 1 ? `type[${i}]` : 'type', 'Unknown token type.');
    });
    const page = await useCases.list.execute(actorOf(res), {
      ids: query.id,
      types: query.type,
      metadata: metadataFilters(req.query),
      page: query.page,
      size: query.size,
    });
    sendJson(res, 200, presentPage(page, presentToken));
  });

  router.get('/tokens/:id', auth, requiresToken('token:read'), async (req, res) => {
    sendJson(res, 200, presentToken(await useCases.get.execute(actorOf(res), String(req.params.id))));
  });

  router.patch('/tokens/:id', auth, requiresToken('token:update'), mergePatchJson, async (req, res) => {
    const body = validate(updateTokenSchema, req.body === undefined ? {} : req.body);
    const input: Record<string, unknown> = {};
    if (has(body, 'data')) input.data = body.data;
    if (has(body, 'mask')) input.mask = body.mask;
    if (has(body, 'metadata')) input.metadata = body.metadata;
    if (has(body, 'expires_at')) input.expiresAt = body.expires_at;
    if (body.containers !== undefined) input.containers = body.containers;
    if (body.search_indexes !== undefined) input.searchIndexes = body.search_indexes;
    if (body.fingerprint_expression !== undefined) input.fingerprintExpression = body.fingerprint_expression;
    if (body.deduplicate_token !== undefined) input.deduplicateToken = body.deduplicate_token;
    sendJson(res, 200, presentToken(await useCases.update.execute(actorOf(res), String(req.params.id), input as UpdateTokenInput, keepWithWrite(res, 200, presentToken))));
  });

  router.delete('/tokens/:id', auth, requiresToken('token:delete'), async (req, res) => {
    await useCases.remove.execute(actorOf(res), String(req.params.id));
    res.status(204).end();
  });
}
