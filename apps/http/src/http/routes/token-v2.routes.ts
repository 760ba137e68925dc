import { isTokenTypeName, ValidationError } from '@svc/core';
import type { IRouter, RequestHandler } from 'express';
import type { TokenUseCases } from '../../container';
import { actorOf, requiresToken } from '../authenticate';
import { presentCursorPage } from '../presenters/cursor-pagination';
import { presentToken } from '../presenters/token.presenter';
import { listTokensV2Query, searchTokensV2Schema } from '../schemas/token-v2.schemas';
import { sendJson } from '../respond';
import { validate } from '../validate';
import { metadataFilters, onlyKnownParameters } from './token.routes';

/** GET /v2/tokens and POST /v2/tokens/search: the v2 lists of Basis Theory's SDK, paged by opaque cursors. */
export function tokenV2Routes(router: IRouter, auth: RequestHandler, useCases: Pick<TokenUseCases, 'listByCursor' | 'searchByCursor'>, readJson: RequestHandler): void {
  // 403 before the parameters or the body are read, as on /tokens.
  router.get('/v2/tokens', auth, requiresToken('token:read'), async (req, res) => {
    onlyKnownParameters(req.query, ['type', 'container', 'fingerprint', 'start', 'size']);
    const query = validate(listTokensV2Query, req.query);
    query.type?.forEach((type, i) => {
      if (!isTokenTypeName(type)) throw ValidationError.field(query.type!.length > 1 ? `type[${i}]` : 'type', 'Unknown token type.');
    });
    const page = await useCases.listByCursor.execute(actorOf(res), {
      types: query.type,
      container: query.container,
      fingerprint: query.fingerprint,
      metadata: metadataFilters(req.query),
      start: query.start,
      size: query.size,
    });
    sendJson(res, 200, presentCursorPage(page, presentToken));
  });

  router.post(
    '/v2/tokens/search',
    auth,
    requiresToken('token:search'),
    readJson,
    async (req, res) => {
      const body = validate(searchTokensV2Schema, req.body ?? {});
      const page = await useCases.searchByCursor.execute(actorOf(res), body);
      sendJson(res, 200, presentCursorPage(page, presentToken));
    },
  );
}
