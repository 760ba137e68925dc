import { z } from 'zod';
import { optional, pagingQuery } from './common';

/** The body of POST /webhooks and PUT /webhooks/{id}; the rules of each field are core's (validateWebhookInput). */
export const webhookSchema = z.strictObject({
  name: z.string(),
  url: z.string(),
  // More entries than there are event types can only hold unknown ones or duplicates; the bound keeps the work small.
  events: z.array(z.string()).max(100, 'At most 100 event types.'),
  status: optional(z.string()),
  notify_email: optional(z.string()),
});

export const listWebhooksQuery = z.strictObject({ ...pagingQuery });
export const listDeliveriesQuery = z.strictObject({ ...pagingQuery });
