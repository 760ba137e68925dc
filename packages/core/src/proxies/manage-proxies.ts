import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import { characterCount } from '../shared/text';
import type { ApplicationRepository } from '../applications/application.repository';
import { isApplicationExpired } from '../applications/application';
import { type Audit, auditOf } from '../audit/audit';
import { factsAbout } from '../audit/audit-effects';
import type { Actor } from '../auth/actor';
import { hashKey } from '../auth/api-key';
import { requirePermission } from '../auth/authorize';
import type { Keyring } from '../crypto/keyring';
import type { ExpressionEngine } from '../expressions';
import { checkDestination } from '../outbound/check-destination';
import type { HostResolver } from '../outbound/host-resolver';
import type { OutboundPolicy } from '../outbound/outbound-policy';
import { base58 } from '../shared/base58';
import type { Clock } from '../shared/clock';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import { type Page, pageRequest } from '../shared/pagination';
import type { RandomSource } from '../shared/random';
import {
  MAX_PROXIES_PER_TENANT,
  MAX_PROXY_CONFIGURATION_ENTRIES,
  MAX_PROXY_CONFIGURATION_VALUE,
  MAX_PROXY_NAME,
  MAX_PROXY_TIMEOUT_SECONDS,
  MAX_PROXY_URL,
  PROXY_KEY_PREFIX,
  type Proxy,
  type ProxyRepository,
  type ProxyTransform,
} from './proxy';
import { checkAppendedHeaders, type ProxyTransformInput, type TokenRequestReader, validateTransforms } from './proxy-transforms';
import { MAX_UPDATE_ATTEMPTS } from '../tokens/update-token';

/** An event about a proxy. */
export const proxyFact = factsAbout('proxy');

export interface ProxyDeps {
  readonly proxies: ProxyRepository;
  readonly applications: ApplicationRepository;
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: RandomSource;
  /** The outbound policy: a destination it refuses is refused at create and update. */
  readonly policy: OutboundPolicy;
  /** Looks up a destination's host name at create and update (see {@link checkDestination}). */
  readonly resolver: HostResolver;
  readonly expressions: ExpressionEngine;
  readonly readTokenRequest: TokenRequestReader;
  /** Proxies a tenant may hold (default {@link MAX_PROXIES_PER_TENANT}). */
  readonly limit?: number;
  readonly audit?: Audit | undefined;
}

/** The fields of a create, a replacement (PUT) or a patch (PATCH: absent fields stay as they are). */
export interface ProxyInput {
  readonly name?: string | null | undefined;
  readonly destinationUrl?: string | null | undefined;
  readonly requestTransforms?: readonly ProxyTransformInput[] | null | undefined;
  readonly responseTransforms?: readonly ProxyTransformInput[] | null | undefined;
  readonly applicationId?: string | null | undefined;
  readonly configuration?: Readonly<Record<string, string>> | null | undefined;
  readonly requireAuth?: boolean | null | undefined;
  readonly timeout?: number | null | undefined;
  readonly disableDetokenization?: boolean | null | undefined;
}

/** A proxy with its configuration opened, as every answer about it shows it. */
export interface ProxyView {
  readonly proxy: Proxy;
  readonly configuration: Readonly<Record<string, string>>;
  /** Only on the create answer, the one time it is shown. */
  readonly key?: string;
}

export const proxyNotFound = (): NotFoundError => new NotFoundError('proxy');

const CONFIGURATION_KEY = /^[A-Za-z0-9_.-]{1,100}$/;

/** The settings of a proxy once its input is checked, before it is sealed and stored. */
interface ProxySettings {
  readonly name: string;
  readonly destinationUrl: string;
  readonly requestTransforms: readonly ProxyTransform[];
  readonly responseTransforms: readonly ProxyTransform[];
  readonly applicationId?: string | undefined;
  readonly configuration: Readonly<Record<string, string>>;
  readonly requireAuth: boolean;
  readonly timeoutSeconds?: number | undefined;
  readonly disableDetokenization: boolean;
}

/**
 * Checks every field (each broken one named): a name of 1 to 200 characters; a destination of at most 2,000 that
 * the outbound policy accepts, its host name looked up and every address it has now checked too (each call checks
 * again); transforms (proxy-transforms.ts); a live private application of the tenant, required
 * by a tokenize transform; a configuration of at most 50 string entries; a timeout of 1 to 120 seconds.
 */
async function checkSettings(deps: ProxyDeps, actor: Actor, s: ProxySettingsDraft): Promise<ProxySettings> {
  const errors: Record<string, string[]> = {};
  const name = s.name?.trim() ?? '';
  if (name.length === 0) errors.name = ['Name is required.'];
  else if (characterCount(name) > MAX_PROXY_NAME) errors.name = [`Name must be at most ${MAX_PROXY_NAME} characters.`];
  const url = s.destinationUrl?.trim() ?? '';
  if (url.length === 0) errors.destination_url = ['Destination url is required.'];
  else if (url.length > MAX_PROXY_URL) errors.destination_url = [`Destination url must be at most ${MAX_PROXY_URL} characters.`];
  else {
    const decision = await checkDestination(deps.policy, deps.resolver, url);
    if (!decision.allowed) errors.destination_url = [`Destination url ${decision.reason}.`];
    else if (decision.value.url.hash !== '') errors.destination_url = ['Destination url may not have a fragment.'];
  }
  const rules = { expressions: deps.expressions, readTokenRequest: deps.readTokenRequest, now: deps.clock.now() };
  const requestTransforms = validateTransforms(rules, 'request_transforms', s.requestTransforms ?? [], errors);
  const responseTransforms = validateTransforms(rules, 'response_transforms', s.responseTransforms ?? [], errors);
  const configuration = s.configuration ?? {};
  const entries = Object.entries(configuration);
  if (entries.length > MAX_PROXY_CONFIGURATION_ENTRIES) errors.configuration = [`At most ${MAX_PROXY_CONFIGURATION_ENTRIES} entries.`];
  for (const [key, value] of entries) {
    if (!CONFIGURATION_KEY.test(key)) (errors[`configuration.${key}`] ??= []).push('Keys are 1 to 100 letters, digits, _ . or -.');
    else if (typeof value !== 'string') (errors[`configuration.${key}`] ??= []).push('Must be a string.');
    else if (value.length > MAX_PROXY_CONFIGURATION_VALUE) (errors[`configuration.${key}`] ??= []).push(`Must be at most ${MAX_PROXY_CONFIGURATION_VALUE} characters.`);
  }
  // A configured header is rendered once now, as each call will render it: see checkAppendedHeaders.
  if (errors.configuration === undefined) checkAppendedHeaders(deps.expressions, requestTransforms, configuration, errors);
  const timeout = s.timeout ?? undefined;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_PROXY_TIMEOUT_SECONDS)) {
    errors.timeout = [`Timeout must be a whole number of seconds from 1 to ${MAX_PROXY_TIMEOUT_SECONDS}.`];
  }
  const applicationId = s.applicationId ?? undefined;
  if (applicationId !== undefined) {
    const application = await deps.applications.findById(actor.tenantId, applicationId.toLowerCase());
    if (!application || isApplicationExpired(application, deps.clock.now())) errors.application_id = ['No application with this id exists.'];
    else if (application.type !== 'private') errors.application_id = ['The application must be a private application.'];
  } else if (requestTransforms.some((t) => t.type === 'tokenize')) {
    errors.application_id = ['A tokenize transform creates its tokens with the proxy\'s application: one is required.'];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    name,
    destinationUrl: url,
    requestTransforms,
    responseTransforms,
    applicationId: applicationId?.toLowerCase(),
    configuration: Object.fromEntries(entries),
    requireAuth: s.requireAuth ?? true,
    timeoutSeconds: timeout,
    disableDetokenization: s.disableDetokenization ?? false,
  };
}

type ProxySettingsDraft = ProxyInput;

async function loadProxy(deps: ProxyDeps, actor: Actor, id: string): Promise<Proxy> {
  const proxy = await deps.proxies.findById(actor.tenantId, id);
  if (!proxy) throw proxyNotFound();
  return proxy;
}

async function view(deps: ProxyDeps, proxy: Proxy, key?: string): Promise<ProxyView> {
  const keys = await deps.keyring.forTenant(proxy.tenantId);
  const configuration = keys.openProxyConfiguration(proxy.id, proxy.sealedConfiguration);
  return key === undefined ? { proxy, configuration } : { proxy, configuration, key };
}

/** POST /proxies: a proxy with a new key (`key_prx_` and 32 random bytes in base58), stored hashed, shown once. */
export class CreateProxy {
  constructor(private readonly deps: ProxyDeps) {}

  /** `keep`: seals the answer for an idempotency key, kept in the proxy's own write. */
  async execute(actor: Actor, input: ProxyInput, keep?: KeepAnswer<ProxyView>): Promise<ProxyView> {
    requirePermission(actor, 'proxy:create');
    const settings = await checkSettings(this.deps, actor, input);
    const id = this.deps.ids.next();
    const key = `${PROXY_KEY_PREFIX}${base58(this.deps.random.bytes(32))}`;
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    const { configuration, ...rest } = settings;
    const proxy: Proxy = {
      id,
      tenantId: actor.tenantId,
      ...rest,
      sealedConfiguration: keys.sealProxyConfiguration(id, configuration),
      keyHash: hashKey(key),
      version: 1,
      createdBy: actor.applicationId,
      createdAt: this.deps.clock.now(),
    };
    const limit = this.deps.limit ?? MAX_PROXIES_PER_TENANT;
    const effects = auditOf(this.deps).write(actor, proxy.createdAt, proxyFact(id, 'create', 'Proxy created'), [
      { type: 'proxy.created', data: proxyHookData(proxy) },
    ]);
    const created: ProxyView = { proxy, configuration, key };
    if ((await this.deps.proxies.create(proxy, limit, await keptWith(effects, keep, created))) === 'limit') {
      throw ValidationError.field('proxies', `A tenant may have at most ${limit} proxies.`);
    }
    return created;
  }
}

export class GetProxy {
  constructor(private readonly deps: ProxyDeps) {}

  async execute(actor: Actor, id: string): Promise<ProxyView> {
    requirePermission(actor, 'proxy:read');
    const proxy = await loadProxy(this.deps, actor, id);
    auditOf(this.deps).record(actor, this.deps.clock.now(), proxyFact(id, 'read', 'Proxy read'));
    return view(this.deps, proxy);
  }
}

export interface ListProxiesInput {
  readonly ids?: readonly string[] | undefined;
  readonly name?: string | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

export class ListProxies {
  constructor(private readonly deps: ProxyDeps) {}

  async execute(actor: Actor, input: ListProxiesInput): Promise<Page<ProxyView>> {
    requirePermission(actor, 'proxy:read');
    const page = await this.deps.proxies.list(actor.tenantId, { ids: input.ids, name: input.name }, pageRequest(input.page, input.size));
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    return { ...page, items: page.items.map((proxy) => ({ proxy, configuration: keys.openProxyConfiguration(proxy.id, proxy.sealedConfiguration) })) };
  }
}

/**
 * How many times an update is tried again over a newer version before it answers 409: as many as a token's. An
 * attempt reads, checks (the destination's name resolved by the outbound policy) and seals, so a handful of PATCHes
 * at once made the slow ones lose five rounds in a row (3 of 8 answered 409 against a real server).
 */
const UPDATE_ATTEMPTS = MAX_UPDATE_ATTEMPTS;

/**
 * PUT (`replace`: every field as given, absent ones back to their defaults) and PATCH (absent fields stay). Applied
 * over the version read; a concurrent change makes it read again and apply again, so no acknowledged change is lost.
 */
export class UpdateProxy {
  constructor(private readonly deps: ProxyDeps) {}

  /** `keep`: the answer is kept with the update (an idempotency key's, see KeepAnswer). */
  async execute(actor: Actor, id: string, input: ProxyInput, mode: 'replace' | 'patch', keep?: KeepAnswer<ProxyView>): Promise<ProxyView> {
    requirePermission(actor, 'proxy:update');
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await loadProxy(this.deps, actor, id);
      const keys = await this.deps.keyring.forTenant(actor.tenantId);
      const draft: ProxyInput = mode === 'replace' ? input : await this.merged(current, input);
      const settings = await checkSettings(this.deps, actor, draft);
      const { configuration, ...rest } = settings;
      const now = this.deps.clock.now();
      const updated: Proxy = {
        ...current,
        applicationId: undefined,
        timeoutSeconds: undefined,
        ...rest,
        sealedConfiguration: keys.sealProxyConfiguration(id, configuration),
        version: current.version + 1,
        modifiedBy: actor.applicationId,
        modifiedAt: now,
      };
      const effects = auditOf(this.deps).write(actor, now, proxyFact(id, 'update', 'Proxy updated'), [
        { type: 'proxy.updated', data: proxyHookData(updated) },
      ]);
      const view: ProxyView = { proxy: updated, configuration };
      const outcome = await this.deps.proxies.update(updated, await keptWith(effects, keep, view));
      if (outcome === 'updated') return view;
      if (outcome === 'absent') throw proxyNotFound();
    }
    throw new ConflictError('PROXY_CHANGED', 'The proxy kept changing while this update was applied; send it again.');
  }

  /** The current settings with the patch's fields over them (`null` clears an optional field). */
  private async merged(current: Proxy, patch: ProxyInput): Promise<ProxyInput> {
    const keys = await this.deps.keyring.forTenant(current.tenantId);
    const pick = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
    return {
      name: pick(patch.name, current.name),
      destinationUrl: pick(patch.destinationUrl, current.destinationUrl),
      requestTransforms: pick(patch.requestTransforms, current.requestTransforms as readonly ProxyTransformInput[]),
      responseTransforms: pick(patch.responseTransforms, current.responseTransforms as readonly ProxyTransformInput[]),
      applicationId: pick(patch.applicationId, current.applicationId ?? null),
      configuration: pick(patch.configuration, keys.openProxyConfiguration(current.id, current.sealedConfiguration)),
      requireAuth: pick(patch.requireAuth, current.requireAuth),
      timeout: pick(patch.timeout, current.timeoutSeconds ?? null),
      disableDetokenization: pick(patch.disableDetokenization, current.disableDetokenization),
    };
  }
}

export class DeleteProxy {
  constructor(private readonly deps: ProxyDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'proxy:delete');
    const proxy = await loadProxy(this.deps, actor, id);
    const effects = auditOf(this.deps).write(actor, this.deps.clock.now(), proxyFact(id, 'delete', 'Proxy deleted'), [
      { type: 'proxy.deleted', data: proxyHookData(proxy) },
    ]);
    if (!(await this.deps.proxies.delete(actor.tenantId, id, effects))) throw proxyNotFound();
  }
}

/** A proxy's own fields as webhooks carry them: never its key or configuration (credentials). */
export function proxyHookData(proxy: Proxy): Record<string, unknown> {
  return {
    id: proxy.id,
    tenant_id: proxy.tenantId,
    name: proxy.name,
    destination_url: proxy.destinationUrl,
    application_id: proxy.applicationId ?? null,
    require_auth: proxy.requireAuth,
    disable_detokenization: proxy.disableDetokenization,
    created_by: proxy.createdBy,
    created_at: proxy.createdAt.toISOString(),
    modified_by: proxy.modifiedBy ?? null,
    modified_at: proxy.modifiedAt?.toISOString() ?? null,
  };
}
