import type { IRouter, RequestHandler } from 'express';
import type { TokenIntentUseCases } from '../../container';
import { actorOf, requires } from '../authenticate';
import { presentTokenIntent } from '../presenters/token-intent.presenter';
import { sendJson } from '../respond';
import { keepWithWrite } from '../idempotency';
import { createTokenIntentSchema } from '../schemas/token-intent.schemas';
import { validate } from '../validate';

/** Token intents (beyond.md §2): card or bank data held for a day until a token is made from it. */
export function tokenIntentRoutes(router: IRouter, auth: RequestHandler, useCases: TokenIntentUseCases, json: RequestHandler): void {
  router.post('/token-intents', auth, requires('token:intent:create'), json, async (req, res) => {
    const body = validate(createTokenIntentSchema, req.body);
    const view = await useCases.create.execute(actorOf(res), { type: body.type, data: body.data }, keepWithWrite(res, 201, presentTokenIntent));
    sendJson(res, 201, presentTokenIntent(view));
  });

  router.get('/token-intents/:id', auth, requires('token:intent:read'), async (req, res) => {
    sendJson(res, 200, presentTokenIntent(await useCases.get.execute(actorOf(res), String(req.params.id))));
  });

  router.delete('/token-intents/:id', auth, requires('token:intent:delete'), async (req, res) => {
    await useCases.remove.execute(actorOf(res), String(req.params.id));
    res.status(204).end();
  });
}
