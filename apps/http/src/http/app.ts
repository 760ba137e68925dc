import type { AcceptInvitation, Audit, Authenticate, Clock, IdempotentRequests, Store } from '@svc/core';
import { EdgeAudit } from './audit-edge';
import { parse } from 'node:querystring';
import express, { type Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import type { Config } from '../config/config';
import type { ApplicationUseCases, AuditLogUseCases, TokenIntentUseCases, TokenUseCases } from '../container';
import { logRoutes } from './routes/log.routes';
import type { Logger } from '../logger';
import { TOKENS } from '../tokens';
import { authenticate } from './authenticate';
import { errorHandler, notFoundHandler } from './errors';
import { jsonBody } from './json-body';
import { idempotent, withoutCursor } from './idempotency';
import { replayWithoutGoneData } from './replay-tokens';
import { requestLog } from './request-log';
import { applicationRoutes } from './routes/applications.routes';
import { tokenRoutes } from './routes/token.routes';
import { tokenV2Routes } from './routes/token-v2.routes';
import { sessionRoutes, type SessionUseCases } from './routes/session.routes';
import { tenantRoutes, type TenantUseCases } from './routes/tenant.routes';
import { acceptRoutes } from './routes/accept.routes';
import { permissionRoutes } from './routes/permission.routes';
import { tokenIntentRoutes } from './routes/token-intent.routes';
import { bulkRoutes } from './routes/bulk.routes';
import { webhookRoutes, type WebhookUseCases } from './routes/webhook.routes';
import { proxiesRoutes, proxyRoutes, type ProxyUseCases } from './routes/proxy.routes';
import { docsRoutes } from './routes/docs.routes';
import { consoleRoutes } from './routes/console.routes';
import { edgeHeaders } from './trace';
import { cors } from './cors';
import { healthRoutes, measureRequests, metricsRoute, rateLimit, type Readiness, RefusalLimit } from './operations';
import type { Metrics } from '../metrics';

/** The Express application over a built container. */
export function createApp(container: DependencyContainer): Express {
  const config = container.resolve<Config>(TOKENS.Config);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const clock = container.resolve<Clock>(TOKENS.Clock);
  const edgeAudit = new EdgeAudit(container.resolve<Audit>(TOKENS.Audit), clock);
  const auth = authenticate(container.resolve<Authenticate>(TOKENS.Authenticate), edgeAudit);
  // Every authenticated POST, PUT and PATCH reads its body through one of these two: idempotency keys hang on them.
  const requests = container.resolve<IdempotentRequests>(TOKENS.IdempotentRequests);
  const json = idempotent(requests, jsonBody(config.bodyLimitBytes), logger);
  // For the POSTs that only read (detokenize, the searches): a retry with the key runs again (docs/idempotency.md).
  const readJson = idempotent(requests, jsonBody(config.bodyLimitBytes), logger, 'digest');

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Node's querystring, without its default cap of 1,000 keys: past it, a filter such as `metadata.team=red` was
  // silently dropped and the page held every token. The request line is bounded by the header size limit anyway.
  app.set('query parser', (text: string) => parse(text, '&', '=', { maxKeys: 0 }));
  const metrics = config.metrics.enabled ? container.resolve<Metrics>(TOKENS.Metrics) : undefined;
  // With metrics on, the edge middleware measures too: one layer fewer for every request than a middleware of its own.
  app.use(metrics ? measureRequests(metrics, edgeHeaders) : edgeHeaders, cors(config.corsOrigins));
  if (logger.enabled('info')) app.use(requestLog(logger));
  if (config.rateLimit) app.use(rateLimit(config.rateLimit));
  // Routes hang on the app itself, each with its own authentication: a nested router per resource cost a few
  // percent of every request in profiles. A path no route knows is a 404 whether or not a key came with it.
  const tokenUseCases = container.resolve<TokenUseCases>(TOKENS.TokenUseCases);
  // Token writes: a replay leaves out token data that has gone since (replay-tokens.ts).
  const storedTokens = container.resolve<Store>(TOKENS.Store).tokens;
  const withoutGone = replayWithoutGoneData(storedTokens, clock, 'token');
  const tokenJson = idempotent(requests, jsonBody(config.bodyLimitBytes), logger, 'answer', withoutGone);
  const mergePatchJson = idempotent(requests, jsonBody(config.bodyLimitBytes, ['application/merge-patch+json'], true), logger, 'answer', withoutGone);
  const tokenizeJson = idempotent(requests, jsonBody(config.bodyLimitBytes), logger, 'answer', replayWithoutGoneData(storedTokens, clock, 'bulk'));
  tokenRoutes(app, auth, tokenUseCases, { json: tokenJson, readJson, mergePatchJson });
  bulkRoutes(app, auth, tokenUseCases, { json: tokenizeJson, readJson }, { detokenize: config.detokenizeLimit, body: config.bodyLimitBytes });
  tokenV2Routes(app, auth, tokenUseCases, idempotent(requests, jsonBody(config.bodyLimitBytes), logger, 'digest', undefined, withoutCursor));
  tokenIntentRoutes(app, auth, container.resolve<TokenIntentUseCases>(TOKENS.TokenIntentUseCases), json);
  applicationRoutes(app, auth, container.resolve<ApplicationUseCases>(TOKENS.ApplicationUseCases), json);
  sessionRoutes(app, auth, container.resolve<SessionUseCases>(TOKENS.SessionUseCases), json);
  tenantRoutes(app, auth, container.resolve<TenantUseCases>(TOKENS.TenantUseCases), json, clock);
  acceptRoutes(app, container.resolve<AcceptInvitation>(TOKENS.AcceptInvitation), config.bodyLimitBytes);
  permissionRoutes(app, auth);
  webhookRoutes(app, auth, container.resolve<WebhookUseCases>(TOKENS.WebhookUseCases), json);
  const proxyUseCases = container.resolve<ProxyUseCases>(TOKENS.ProxyUseCases);
  const patchJson = idempotent(requests, jsonBody(config.bodyLimitBytes, ['application/merge-patch+json', 'application/json']), logger);
  proxiesRoutes(app, auth, proxyUseCases, { json, patchJson, bodyLimitBytes: config.bodyLimitBytes });
  proxyRoutes(app, auth, proxyUseCases, config.bodyLimitBytes);
  logRoutes(app, auth, container.resolve<AuditLogUseCases>(TOKENS.AuditLogUseCases));
  // The API's description and its rendering: no key, no tenant data.
  docsRoutes(app);
  // The operator console: static files over the public API, no key.
  consoleRoutes(app);
  // Probes and metrics take no API key, and are never rate limited. They come after the API's routes, which every
  // request would otherwise test them against first.
  const store = container.resolve<Store>(TOKENS.Store);
  const readiness = container.resolve<Readiness>(TOKENS.Readiness);
  healthRoutes(app, store, readiness);
  if (metrics) metricsRoute(app, metrics, config.metrics.token);
  app.use(notFoundHandler);
  const refusals = config.rateLimit ? new RefusalLimit(config.rateLimit, () => clock.now().getTime()) : undefined;
  app.use(errorHandler(logger, edgeAudit, { faultOf: (error) => store.fault?.(error), readiness }, refusals));
  return app;
}
