import type { IRouter, RequestHandler } from 'express';
import type { z } from 'zod';
import {
  type CreateWebhook,
  type DeleteWebhook,
  type GetWebhook,
  isUuid,
  type ListWebhookEventTypes,
  type ListWebhooks,
  type ListWebhookDeliveries,
  NotFoundError,
  type UpdateWebhook,
  type WebhookWithSecret,
} from '@svc/core';
import { actorOf, requires } from '../authenticate';
import { presentPage } from '../presenters/pagination';
import { presentDelivery, presentWebhook } from '../presenters/webhook.presenter';
import { sendJson } from '../respond';
import { keepWithWrite } from '../idempotency';
import { listDeliveriesQuery, listWebhooksQuery, webhookSchema } from '../schemas/webhook.schemas';
import { validate } from '../validate';

export interface WebhookUseCases {
  readonly create: CreateWebhook;
  readonly list: ListWebhooks;
  readonly get: GetWebhook;
  readonly update: UpdateWebhook;
  readonly remove: DeleteWebhook;
  readonly eventTypes: ListWebhookEventTypes;
  readonly deliveries: ListWebhookDeliveries;
}

/** Path ids that are not UUIDs can name no webhook: answer as absent. */
function webhookId(raw: string | string[] | undefined): string {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new NotFoundError('webhook');
  return raw.toLowerCase();
}

const toInput = (body: z.output<typeof webhookSchema>) => ({
  name: body.name,
  url: body.url,
  events: body.events,
  status: body.status,
  notifyEmail: body.notify_email,
});

/** Webhooks (beyond.md §6): CRUD, the event types and each webhook's deliveries, management keys only. */
export function webhookRoutes(router: IRouter, auth: RequestHandler, useCases: WebhookUseCases, json: RequestHandler): void {
  router.post('/webhooks', auth, requires('webhook:create'), json, async (req, res) => {
    const present = ({ webhook, secret }: WebhookWithSecret) => presentWebhook(webhook, secret);
    sendJson(res, 201, present(await useCases.create.execute(actorOf(res), toInput(validate(webhookSchema, req.body)), keepWithWrite(res, 201, present))));
  });

  router.get('/webhooks', auth, requires('webhook:read'), async (req, res) => {
    const query = validate(listWebhooksQuery, req.query);
    const page = await useCases.list.execute(actorOf(res), { page: query.page, size: query.size });
    sendJson(res, 200, presentPage(page, (webhook) => presentWebhook(webhook)));
  });

  // Before /webhooks/:id, which would take `event-types` for an id.
  router.get('/webhooks/event-types', auth, requires('webhook:read'), (_req, res) => {
    sendJson(res, 200, useCases.eventTypes.execute(actorOf(res)));
  });

  router.get('/webhooks/:id', auth, requires('webhook:read'), async (req, res) => {
    sendJson(res, 200, presentWebhook(await useCases.get.execute(actorOf(res), webhookId(req.params.id))));
  });

  router.put('/webhooks/:id', auth, requires('webhook:update'), json, async (req, res) => {
    const id = webhookId(req.params.id);
    const input = toInput(validate(webhookSchema, req.body));
    sendJson(res, 200, presentWebhook(await useCases.update.execute(actorOf(res), id, input, keepWithWrite(res, 200, presentWebhook))));
  });

  router.get('/webhooks/:id/deliveries', auth, requires('webhook:read'), async (req, res) => {
    const id = webhookId(req.params.id);
    const query = validate(listDeliveriesQuery, req.query);
    const page = await useCases.deliveries.execute(actorOf(res), id, { page: query.page, size: query.size });
    sendJson(res, 200, presentPage(page, presentDelivery));
  });

  router.delete('/webhooks/:id', auth, requires('webhook:delete'), async (req, res) => {
    await useCases.remove.execute(actorOf(res), webhookId(req.params.id));
    res.status(204).end();
  });
}
