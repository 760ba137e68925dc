import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type CreateProxy,
  type DeleteProxy,
  ForbiddenError,
  type GetProxy,
  type InvokeProxy,
  isUuid,
  type ListProxies,
  NotFoundError,
  type ProxyAnswer,
  type ProxyInput,
  type ProxyTarget,
  type ProxyTransformInput,
  type UpdateProxy,
  PROXY_KEY_REFUSED,
  UnauthenticatedError,
  ValidationError,
} from '@svc/core';
import express, { type IRouter, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { actorOf, requires } from '../authenticate';
import { presentPage } from '../presenters/pagination';
import { presentProxy } from '../presenters/proxy.presenter';
import { sendJson } from '../respond';
import { keepWithWrite } from '../idempotency';
import { listProxiesQuery, type ProxyBody, proxySchema, type TransformBody } from '../schemas/proxy.schemas';
import { validate } from '../validate';
import { declaredOverLimit, unsupportedTransferCoding } from '../json-body';
import { HTTP_PROBLEMS, HttpProblemError } from '../problem';

export interface ProxyUseCases {
  readonly create: CreateProxy;
  readonly list: ListProxies;
  readonly get: GetProxy;
  readonly update: UpdateProxy;
  readonly remove: DeleteProxy;
  readonly invoke: InvokeProxy;
}

export interface ProxyRouteParsers {
  /** JSON bodies (POST, PUT), with idempotency keys. */
  readonly json: RequestHandler;
  /** PATCH: JSON merge patches (Basis Theory's SDK sends `application/merge-patch+json`) or plain JSON. */
  readonly patchJson: RequestHandler;
  readonly bodyLimitBytes: number;
}

/** Path ids that are not UUIDs can name no proxy: answer as absent. */
function proxyId(raw: string | string[] | undefined): string {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new NotFoundError('proxy');
  return raw.toLowerCase();
}

/** A transform in core's terms, whichever of the two spellings (svc's or Basis Theory's `options`) it came in. */
function transformInput(t: TransformBody, field: string, index: number): ProxyTransformInput {
  if (t.code !== undefined) {
    throw ValidationError.field(`${field}[${index}].code`, 'svc runs no code in proxies: use the declarative transforms (tokenize, detokenize, mask, append_header).');
  }
  return {
    type: t.type,
    matcher: t.matcher,
    expression: t.expression,
    replacement: t.replacement,
    name: t.name ?? t.options?.location ?? t.options?.identifier,
    value: t.value ?? t.options?.value,
    token: t.token ?? t.options?.token,
  };
}

function toInput(body: ProxyBody): ProxyInput {
  const refused: Record<string, string[]> = {};
  for (const field of ['request_transform', 'response_transform', 'request_reactor_id', 'response_reactor_id'] as const) {
    if (body[field] !== undefined) refused[field] = ['svc runs no reactors or code in proxies: use request_transforms and response_transforms.'];
  }
  if (body.application_id != null && body.application != null && body.application.id.toLowerCase() !== body.application_id.toLowerCase()) {
    refused.application = ['Names another application than application_id.'];
  }
  const applicationId = body.application_id !== undefined ? body.application_id : body.application === undefined ? undefined : (body.application?.id ?? null);
  if (applicationId != null && !isUuid(applicationId)) refused.application_id = ['Must be a UUID.'];
  if (Object.keys(refused).length > 0) throw new ValidationError(refused);
  const transforms = (list: readonly TransformBody[] | null | undefined, field: string) =>
    list == null ? list : list.map((t, i) => transformInput(t, field, i));
  return {
    name: body.name,
    destinationUrl: body.destination_url,
    requestTransforms: transforms(body.request_transforms, 'request_transforms'),
    responseTransforms: transforms(body.response_transforms, 'response_transforms'),
    applicationId,
    configuration: body.configuration,
    requireAuth: body.require_auth,
    timeout: body.timeout,
    disableDetokenization: body.disable_detokenization,
  };
}

/** Pre-configured proxies (beyond.md §7): CRUD with management keys. */
export function proxiesRoutes(router: IRouter, auth: RequestHandler, useCases: ProxyUseCases, parsers: ProxyRouteParsers): void {
  // No body reads as an empty one (the schema names what is missing); a JSON `null` is a body, and not an object.
  const body = (req: Request) => toInput(validate(proxySchema, req.body === undefined ? {} : req.body));

  router.post('/proxies', auth, requires('proxy:create'), parsers.json, async (req, res) => {
    sendJson(res, 201, presentProxy(await useCases.create.execute(actorOf(res), body(req), keepWithWrite(res, 201, presentProxy))));
  });

  router.get('/proxies', auth, requires('proxy:read'), async (req, res) => {
    const query = validate(listProxiesQuery, req.query);
    query.id?.forEach((id, i) => {
      if (!isUuid(id)) throw ValidationError.field(`id[${i}]`, 'Must be a UUID.');
    });
    const page = await useCases.list.execute(actorOf(res), { ids: query.id?.map((id) => id.toLowerCase()), name: query.name, page: query.page, size: query.size });
    sendJson(res, 200, presentPage(page, presentProxy));
  });

  router.get('/proxies/:id', auth, requires('proxy:read'), async (req, res) => {
    sendJson(res, 200, presentProxy(await useCases.get.execute(actorOf(res), proxyId(req.params.id))));
  });

  router.put('/proxies/:id', auth, requires('proxy:update'), parsers.json, async (req, res) => {
    const id = proxyId(req.params.id);
    sendJson(res, 200, presentProxy(await useCases.update.execute(actorOf(res), id, body(req), 'replace', keepWithWrite(res, 200, presentProxy))));
  });

  router.patch('/proxies/:id', auth, requires('proxy:update'), parsers.patchJson, async (req, res) => {
    const id = proxyId(req.params.id);
    sendJson(res, 200, presentProxy(await useCases.update.execute(actorOf(res), id, body(req), 'patch', keepWithWrite(res, 200, presentProxy))));
  });

  router.delete('/proxies/:id', auth, requires('proxy:delete'), async (req, res) => {
    await useCases.remove.execute(actorOf(res), proxyId(req.params.id));
    res.status(204).end();
  });
}

const PROXY_KEY_PARAMS = new Set(['svc-proxy-key', 'bt-proxy-key']);

/** The raw query without the proxy key parameter (which is svc's, and a secret); the rest passes on as sent. */
function splitQuery(rawQuery: string): { query: string; proxyKey?: string } {
  let proxyKey: string | undefined;
  const kept: string[] = [];
  for (const part of rawQuery === '' ? [] : rawQuery.split('&')) {
    const name = part.split('=')[0]!;
    let decoded: string;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase();
    } catch {
      decoded = name.toLowerCase();
    }
    if (PROXY_KEY_PARAMS.has(decoded)) {
      const value = part.slice(name.length + 1);
      try {
        proxyKey ??= decodeURIComponent(value.replace(/\+/g, ' '));
      } catch {
        throw ValidationError.field(decoded, 'The proxy key is not validly percent-encoded.');
      }
    } else kept.push(part);
  }
  return { query: kept.join('&'), ...(proxyKey !== undefined ? { proxyKey } : {}) };
}

/**
 * What follows `/proxy` in the raw (still percent-encoded) path, as the router matched it: `req.path`, not the request
 * line, which may be in absolute form (`GET https://host/proxy/x`). `.` and `..` segments are refused, so a call
 * cannot climb out of a proxy's path.
 */
function pathSuffix(path: string): string {
  const suffix = path.slice('/proxy'.length);
  for (const segment of suffix.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw ValidationError.field('path', 'The path is not validly percent-encoded.');
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\')) {
      throw ValidationError.field('path', 'The path may not hold . or .. segments or encoded slashes.');
    }
  }
  return suffix === '/' ? '' : suffix;
}

/** Headers as Node joined them, one string each (`set-cookie` is never a request header). */
function headerRecord(req: Request): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Sends the destination's answer on, streaming its body; a body cut off midway cuts the caller's connection too, and
 * a caller that hangs up (before the answer came, or midway) stops the reading of the destination's body.
 */
async function sendAnswer(res: Response, answer: ProxyAnswer): Promise<void> {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of answer.headers) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  for (const [name, values] of grouped) {
    if (!passesBack(res, name)) continue;
    try {
      res.setHeader(name, values.length === 1 ? values[0]! : values);
    } catch {
      // A header Node will not send (invalid characters): left out rather than failing the answer.
    }
  }
  // The answer is served from the vault's origin: a page in it must not run scripts or reach the vault's own API.
  res.setHeader('Content-Security-Policy', [...(grouped.get('content-security-policy') ?? []), 'sandbox']);
  res.setHeader('SVC-PROXY-DESTINATION-STATUS', String(answer.status));
  res.status(answer.status);
  if (answer.body instanceof Uint8Array) {
    res.end(answer.body);
    return;
  }
  try {
    // pipeline ends the body's iteration however the response ends: waiting for 'drain' on a response whose caller
    // has gone would wait forever, holding the destination's connection.
    await pipeline(Readable.from(answer.body, { objectMode: false }), res);
  } catch {
    answer.cancel();
    res.destroy();
    // Ends the response for the server's drain, which waits for every handler to end its response (a no-op on the wire).
    res.end();
  }
}

/**
 * Answer headers that would speak for the vault's origin, where the answer is served: HSTS, alternative services and
 * pinning about the destination's own origin; cookies the browser would store for (or clear from) the vault's origin;
 * Clear-Site-Data, which would wipe the vault's storage; Refresh, a redirect to anywhere. Never passed on.
 */
const ORIGIN_BOUND = new Set([
  'strict-transport-security',
  'alt-svc',
  'public-key-pins',
  'public-key-pins-report-only',
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'refresh',
]);

/**
 * Headers svc sets itself, whether or not it set them on this answer (the edge sets most on every answer), and the
 * trace id's BT-* alias, which a caller would take for the vault's.
 */
const VAULT_SET = new Set(['bt-trace-id', 'cache-control', 'x-content-type-options']);

/** svc's own: its namespace (SVC-*, the trace id among them), CORS, and the headers it sets. */
function isVaultOwn(name: string): boolean {
  return name.startsWith('svc-') || name.startsWith('access-control-') || VAULT_SET.has(name);
}

/**
 * Whether a destination's answer header goes on to the caller: not one that speaks for the vault's origin, not one in
 * svc's own namespace (SVC-*, which a destination could use to pass for the vault: `SVC-IDEMPOTENT-REPLAYED: true`),
 * and never in place of a header svc has set on the answer already (`X-Content-Type-Options: nosniff`,
 * `Cache-Control: no-store` for what may hold card data, the trace id, CORS).
 */
function passesBack(res: Response, name: string): boolean {
  return !ORIGIN_BOUND.has(name) && !isVaultOwn(name) && !res.hasHeader(name);
}

/** TRACE and TRACK echo the request back: through a proxy that adds configured credentials, they would show them. */
const REFUSED_METHODS = new Set(['TRACE', 'TRACK']);

/**
 * The proxy (beyond.md §7): `/proxy` and `/proxy/<path>`, any method. With SVC-PROXY-KEY (or BT-PROXY-KEY, or the
 * `svc-proxy-key` / `bt-proxy-key` query parameter) a pre-configured proxy, which asks for an API key unless it was
 * made with `require_auth: false`; otherwise SVC-PROXY-URL (or BT-PROXY-URL) names the destination and an API key
 * is required.
 */
export function proxyRoutes(router: IRouter, auth: RequestHandler, useCases: ProxyUseCases, bodyLimitBytes: number): void {
  const target = async (req: Request, res: Response, next: NextFunction) => {
    // A page of the vault's own origin (the console, the API's description) never calls the proxy. A script injected
    // into one could otherwise load or fetch whatever a destination answers as same-origin content, which the
    // console's Content-Security-Policy ('self') allows: a script, or a channel out for the key it holds.
    if (req.get('sec-fetch-site') === 'same-origin') {
      throw new ForbiddenError('The proxy is not called from pages of the vault itself.');
    }
    if (REFUSED_METHODS.has(req.method)) {
      throw new HttpProblemError(HTTP_PROBLEMS.methodNotAllowed, `The proxy does not pass ${req.method} on: it would echo the credentials the proxy adds.`);
    }
    const { query, proxyKey: fromQuery } = splitQuery(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');
    const proxyKey = req.get('svc-proxy-key') ?? req.get('bt-proxy-key') ?? fromQuery;
    res.locals.proxyQuery = query;
    if (proxyKey !== undefined && proxyKey.trim() !== '') {
      const proxy = await useCases.invoke.proxyFor(proxyKey.trim());
      res.locals.proxyTarget = { kind: 'configured', proxy } satisfies ProxyTarget;
      if (!proxy.requireAuth) {
        next();
        return;
      }
      try {
        await (auth(req, res, next) as unknown as Promise<void> | undefined);
      } catch (error) {
        throw error instanceof UnauthenticatedError ? new UnauthenticatedError(PROXY_KEY_REFUSED) : error;
      }
      return;
    } else {
      const url = req.get('svc-proxy-url') ?? req.get('bt-proxy-url');
      res.locals.proxyTarget = url === undefined ? undefined : ({ kind: 'ephemeral', url: url.trim() } satisfies ProxyTarget);
    }
    // The authentication middleware is async: its failure must reach Express through this handler's promise.
    await (auth(req, res, next) as unknown as Promise<void> | undefined);
  };
  const parseRaw = express.raw({ limit: bodyLimitBytes, type: () => true, inflate: false });
  const raw = (req: Request, res: Response, next: NextFunction): void => {
    const refused = unsupportedTransferCoding(req) ?? declaredOverLimit(req, res, bodyLimitBytes);
    if (refused) next(refused);
    else parseRaw(req, res, next);
  };
  const handler = async (req: Request, res: Response) => {
    const proxyTarget = res.locals.proxyTarget as ProxyTarget | undefined;
    if (proxyTarget === undefined) throw ValidationError.field('SVC-PROXY-URL', 'Name the destination in SVC-PROXY-URL, or a pre-configured proxy in SVC-PROXY-KEY.');
    // A caller that hangs up before the answer came ends the call to the destination (and its socket) at once: held
    // until the timeout, abandoned calls took every file descriptor past SVC_MAX_CONNECTIONS.
    const abandoned = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abandoned.abort();
    });
    const answer = await useCases.invoke.execute(proxyTarget, res.locals.actor, {
      method: req.method,
      path: pathSuffix(req.path),
      query: res.locals.proxyQuery as string,
      headers: headerRecord(req),
      body: Buffer.isBuffer(req.body) ? req.body : undefined,
      traceId: res.locals.traceId as string | undefined,
      signal: abandoned.signal,
    });
    await sendAnswer(res, answer);
  };
  router.all('/proxy', target, raw, handler);
  router.all('/proxy/*path', target, raw, handler);
}
