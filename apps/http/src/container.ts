import { join } from 'node:path';
import { DnsHostResolver, UndiciOutboundHttp } from '@svc/outbound';
import {
  Authenticate,
  AcceptInvitation,
  AuthorizeSession,
  Bootstrap,
  CreateInvitation,
  DeleteInvitation,
  DeleteMember,
  GetInvitation,
  GetTenant,
  INVITATION_LIFETIME_MS,
  type InvitationDeps,
  KeyedQueue,
  ListInvitations,
  ListMembers,
  type Mailer,
  ResendInvitation,
  CreateSession,
  CreateToken,
  CreateTokenIntent,
  DeleteTokenIntent,
  GetTokenIntent,
  TokenIntentClaims,
  type TokenIntentDeps,
  Detokenize,
  Tokenize,
  DeleteToken,
  ExpressionEngine,
  GetToken,
  Keyring,
  ListTokens,
  ListTokensByCursor,
  SearchTokens,
  SearchTokensByCursor,
  type TokenDeps,
  UpdateToken,
  type Clock,
  OutboundPolicy,
  type OutboundHttp,
  type HostResolver,
  CreateApplication,
  CreateApplicationKey,
  CreateTenant,
  CryptoRandomSource,
  DeleteApplication,
  DeleteApplicationKey,
  GetApplication,
  GetApplicationByKey,
  GetApplicationKey,
  type IdGenerator,
  ListApplicationKeys,
  ListApplications,
  type RandomSource,
  RegenerateApplicationKey,
  type Store,
  Sweep,
  IdempotentRequests,
  CreateWebhook,
  CreateProxy,
  DeleteProxy,
  GetProxy,
  InvokeProxy,
  ListProxies,
  UpdateProxy,
  type ProxyDeps,
  DeleteWebhook,
  GetWebhook,
  ListWebhookEventTypes,
  ListWebhooks,
  UpdateWebhook,
  type WebhookDeps,
  SystemClock,
  UpdateApplication,
  TimeOrderedUuidGenerator,
  Audit,
  AuditRecorder,
  ChainAuditEvents,
  DeliverWebhooks,
  ListAuditEntityTypes,
  ListAuditLog,
  ListWebhookDeliveries,
  VerifyAuditLog,
} from '@svc/core';
import { NodemailerMailer } from '@svc/mail';
import { createMemoryStore } from '@svc/memory';
import { openMongoStore } from '@svc/mongo';
import { openSqliteStore, SqliteStore } from '@svc/sqlite';
import { container as root, type DependencyContainer, instanceCachingFactory } from 'tsyringe';
import type { Config } from './config/config';
import { configuredMasterKey, openMasterKey } from './config/open-master-key';
import { Logger } from './logger';
import { TOKENS } from './tokens';
import type { SessionUseCases } from './http/routes/session.routes';
import type { TenantUseCases } from './http/routes/tenant.routes';
import type { WebhookUseCases } from './http/routes/webhook.routes';
import type { ProxyUseCases } from './http/routes/proxy.routes';
import { Readiness } from './http/operations';
import { instrumentStore, Metrics } from './metrics';
import { presentToken } from './http/presenters/token.presenter';
import { createTokenInput, createTokenSchema } from './http/schemas/token.schemas';
import { validate } from './http/validate';

export interface ApplicationUseCases {
  readonly create: CreateApplication;
  readonly list: ListApplications;
  readonly get: GetApplication;
  readonly getByKey: GetApplicationByKey;
  readonly update: UpdateApplication;
  readonly regenerate: RegenerateApplicationKey;
  readonly remove: DeleteApplication;
  readonly createKey: CreateApplicationKey;
  readonly listKeys: ListApplicationKeys;
  readonly getKey: GetApplicationKey;
  readonly deleteKey: DeleteApplicationKey;
}

export interface TokenUseCases {
  readonly create: CreateToken;
  readonly get: GetToken;
  readonly update: UpdateToken;
  readonly remove: DeleteToken;
  readonly search: SearchTokens;
  readonly list: ListTokens;
  readonly listByCursor: ListTokensByCursor;
  readonly searchByCursor: SearchTokensByCursor;
  readonly tokenize: Tokenize;
  readonly detokenize: Detokenize;
}

export interface AuditLogUseCases {
  readonly list: ListAuditLog;
  readonly entityTypes: ListAuditEntityTypes;
  readonly chain: ChainAuditEvents;
  readonly verify: VerifyAuditLog;
}

export interface TokenIntentUseCases {
  readonly create: CreateTokenIntent;
  readonly get: GetTokenIntent;
  readonly remove: DeleteTokenIntent;
  /** Token creates that name an intent (POST /tokens, POST /tokenize) claim it here. */
  readonly claims: TokenIntentClaims;
}

/** Ports that tests (and embedders) may replace: a fixed clock, predictable ids, an in-memory store. */
export interface ContainerOverrides {
  readonly store?: Store;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly random?: RandomSource;
  readonly logger?: Logger;
  readonly mailer?: Mailer;
  /** Outbound HTTP (webhooks, the proxy); tests may give one that resolves names to 127.0.0.1. */
  readonly outbound?: OutboundHttp;
  /** Looks up webhook and proxy destinations' host names at create and update; tests may give one that resolves names as they choose. */
  readonly resolver?: HostResolver;
  /** The master key, already checked against the store (createContainer opens it; see openMasterKey). Secret. */
  readonly masterKey?: Buffer;
}

export interface ContainerOptions {
  /**
   * May generate master.key for a fresh SQLite store (no data keys yet) when SVC_MASTER_KEY is not set: `svc serve`
   * and `svc tenants create`. Other commands never make one. Default false.
   */
  readonly createMasterKey?: boolean;
  /** For commands that only read (`svc audit verify`): the keyring makes no data key. Default false. */
  readonly readOnly?: boolean;
  /** `svc keys rotate`: data keys this new master key opens pass the start's check (a rotation cut short, run again). */
  readonly rotatingTo?: Buffer;
}

export interface OpenStoreOptions {
  /** For `svc serve` and `svc keys rotate`: the SQLite store claims its file for this process alone. */
  readonly exclusive?: boolean;
}

/** Opens the store the configuration names (MongoDB connects and creates its indexes first). */
export async function openStore(config: Config, options: OpenStoreOptions = {}): Promise<Store> {
  if (config.store === 'mongo') return openMongoStore({ uri: config.mongoUri! });
  return openLocalStore(config, options);
}

function openLocalStore(config: Config, options: OpenStoreOptions = {}): Store {
  if (config.store === 'memory') return createMemoryStore();
  if (config.store === 'sqlite') {
    return openSqliteStore({ file: join(config.dataDir, 'svc.db'), searchReaders: config.searchReaders, exclusive: options.exclusive });
  }
  throw new Error(`the ${config.store} store opens asynchronously: use createContainer`);
}

/**
 * The container over the configured store, once it is open and the master key has been checked against its data keys
 * (a missing or wrong key is a ConfigError, before anything reads or writes with it).
 */
export async function createContainer(config: Config, overrides: ContainerOverrides = {}, options: ContainerOptions = {}): Promise<DependencyContainer> {
  const configured = overrides.masterKey ?? configuredMasterKey(config);
  const store = overrides.store ?? (await openStore(config));
  try {
    const random = overrides.random ?? new CryptoRandomSource();
    const masterKey = await openMasterKey(config, configured, store.dataKeys, { create: options.createMasterKey === true, random, rotatingTo: options.rotatingTo });
    return buildContainer(config, { ...overrides, store, random, masterKey }, options);
  } catch (error) {
    // A store this call opened must not outlive it: its threads would keep the process from exiting.
    if (!overrides.store) await store.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The master key of a container built without createContainer (tests, embedders): the one given, SVC_MASTER_KEY, or
 * a throwaway one for the memory store. A SQLite store's master.key is read and checked only by createContainer.
 */
function givenMasterKey(config: Config, overrides: ContainerOverrides, random: RandomSource): Buffer {
  if (overrides.masterKey) return overrides.masterKey;
  if (config.masterKey) return config.masterKey;
  if (config.store === 'memory') return Buffer.from(random.bytes(32));
  throw new Error(`the ${config.store} store's master key is opened by createContainer (or set SVC_MASTER_KEY)`);
}

const single = <T>(make: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory<T>(make) });

/** The composition root: every adapter and use case, chosen from configuration. */
export function buildContainer(config: Config, overrides: ContainerOverrides = {}, options: ContainerOptions = {}): DependencyContainer {
  const c = root.createChildContainer();
  const random = overrides.random ?? new CryptoRandomSource();
  const opened = overrides.store ?? openLocalStore(config);
  const metrics = config.metrics.enabled ? new Metrics(() => opened.webhookDeliveries.countPending()) : undefined;
  if (metrics && opened instanceof SqliteStore) {
    opened.observeWrites(({ writes, waitMs, commitMs }) => metrics.writerBatchCommitted(writes, waitMs / 1000, commitMs / 1000));
  }
  // With metrics on, every repository call is timed; off, the store is used as it is.
  const store = metrics ? instrumentStore(opened, metrics) : opened;
  if (metrics) c.register(TOKENS.Metrics, { useValue: metrics });
  const clock = overrides.clock ?? new SystemClock();
  c.register(TOKENS.Readiness, { useValue: new Readiness(() => clock.now().getTime()) });
  c.register(TOKENS.Config, { useValue: config });
  c.register(TOKENS.Logger, { useValue: overrides.logger ?? new Logger(config.logLevel) });
  c.register(TOKENS.Store, { useValue: store });
  c.register(TOKENS.Clock, { useValue: clock });
  c.register(TOKENS.Ids, { useValue: overrides.ids ?? new TimeOrderedUuidGenerator() });
  c.register(TOKENS.Random, { useValue: random });
  // Built on first use: nothing calls out yet, and an unused pool holds no connection.
  c.register(TOKENS.OutboundHttp, single<OutboundHttp>(() =>
    overrides.outbound ?? new UndiciOutboundHttp({ policy: new OutboundPolicy(config.outboundAllow), extraCa: config.outboundCaPem }),
  ));
  // Webhook deliveries call out on their own client, with at most two lookups at a time (see gateLookups): names whose
  // DNS never answers would otherwise fill libuv's pool and stall every proxy call behind them.
  c.register(TOKENS.WebhookOutboundHttp, single<OutboundHttp>(() =>
    overrides.outbound ??
      new UndiciOutboundHttp({ policy: new OutboundPolicy(config.outboundAllow), extraCa: config.outboundCaPem, maxConcurrentLookups: 2 }),
  ));
  c.register(TOKENS.MasterKey, single(() => givenMasterKey(config, overrides, random)));
  // Events of reads, refusals and failures, batched (ADR 4); writes carry theirs into the store themselves.
  c.register(TOKENS.AuditRecorder, single((d) => {
    const logger = d.resolve<Logger>(TOKENS.Logger);
    return new AuditRecorder(store.auditLog, {
      onError: (error, lost) => logger.error('audit events lost: the store refused a batch', { events: lost, error: error instanceof Error ? error.name : 'unknown' }),
    });
  }));
  c.register(TOKENS.Audit, single((d) => {
    // A store that chains as it writes gets the tenants' audit keys (derived from their data keys, in the keyring).
    const keyring = d.resolve<Keyring>(TOKENS.Keyring);
    store.auditLog.useChainKeys?.(async (tenantId) => (await keyring.forTenant(tenantId)).auditKey());
    return new Audit(d.resolve<AuditRecorder>(TOKENS.AuditRecorder), d.resolve<IdGenerator>(TOKENS.Ids));
  }));
  c.register(TOKENS.AuditLogUseCases, single<AuditLogUseCases>((d) => {
    const recorder = d.resolve<AuditRecorder>(TOKENS.AuditRecorder);
    const keyring = d.resolve<Keyring>(TOKENS.Keyring);
    return {
      list: new ListAuditLog({ auditLog: store.auditLog, flush: () => recorder.flush() }),
      entityTypes: new ListAuditEntityTypes(),
      chain: new ChainAuditEvents({ auditLog: store.auditLog, keyring }),
      verify: new VerifyAuditLog({ auditLog: store.auditLog, keyring, clock: d.resolve<Clock>(TOKENS.Clock) }),
    };
  }));
  c.register(TOKENS.DeliverWebhooks, single((d) => new DeliverWebhooks({
    webhooks: store.webhooks,
    deliveries: store.webhookDeliveries,
    keyring: d.resolve<Keyring>(TOKENS.Keyring),
    outbound: d.resolve<OutboundHttp>(TOKENS.WebhookOutboundHttp),
    clock: d.resolve<Clock>(TOKENS.Clock),
    audit: d.resolve<Audit>(TOKENS.Audit),
  })));

  const appDeps = (d: DependencyContainer) => ({
    applications: d.resolve<Store>(TOKENS.Store).applications,
    sessions: d.resolve<Store>(TOKENS.Store).sessions,
    clock: d.resolve<Clock>(TOKENS.Clock),
    ids: d.resolve<IdGenerator>(TOKENS.Ids),
    random: d.resolve<RandomSource>(TOKENS.Random),
    audit: d.resolve<Audit>(TOKENS.Audit),
  });
  c.register(TOKENS.ApplicationUseCases, single<ApplicationUseCases>((d) => {
    const deps = appDeps(d);
    return {
      create: new CreateApplication(deps),
      list: new ListApplications(deps),
      get: new GetApplication(deps),
      getByKey: new GetApplicationByKey(deps),
      update: new UpdateApplication(deps),
      regenerate: new RegenerateApplicationKey(deps),
      remove: new DeleteApplication(deps),
      createKey: new CreateApplicationKey(deps),
      listKeys: new ListApplicationKeys(deps),
      getKey: new GetApplicationKey(deps),
      deleteKey: new DeleteApplicationKey(deps),
    };
  }));
  c.register(TOKENS.Authenticate, single((d) => new Authenticate(appDeps(d))));
  c.register(TOKENS.CreateTenant, single((d) => {
    const s = d.resolve<Store>(TOKENS.Store);
    return new CreateTenant({
      tenants: s.tenants,
      users: s.users,
      members: s.members,
      createApplication: d.resolve<ApplicationUseCases>(TOKENS.ApplicationUseCases).create,
      clock: d.resolve<Clock>(TOKENS.Clock),
      ids: d.resolve<IdGenerator>(TOKENS.Ids),
    });
  }));
  c.register(TOKENS.Bootstrap, single((d) => new Bootstrap({
    system: d.resolve<Store>(TOKENS.Store).system,
    createTenant: d.resolve<CreateTenant>(TOKENS.CreateTenant),
    // SQLite is served by one process (its lock) and memory by this one; MongoDB may be shared by several.
    redoUnfinished: config.store !== 'mongo',
    applications: d.resolve<Store>(TOKENS.Store).applications,
  })));
  c.register(TOKENS.Expressions, single((d) => new ExpressionEngine({ random: d.resolve<RandomSource>(TOKENS.Random) })));
  c.register(TOKENS.Keyring, single((d) => new Keyring({
    dataKeys: d.resolve<Store>(TOKENS.Store).dataKeys,
    random: d.resolve<RandomSource>(TOKENS.Random),
    clock: d.resolve<Clock>(TOKENS.Clock),
    masterKey: d.resolve<Buffer>(TOKENS.MasterKey),
    createMissing: options.readOnly !== true,
  })));
  c.register(TOKENS.TokenUseCases, single<TokenUseCases>((d) => {
    const deps: TokenDeps = {
      tokens: d.resolve<Store>(TOKENS.Store).tokens,
      keyring: d.resolve<Keyring>(TOKENS.Keyring),
      expressions: d.resolve<ExpressionEngine>(TOKENS.Expressions),
      clock: d.resolve<Clock>(TOKENS.Clock),
      ids: d.resolve<IdGenerator>(TOKENS.Ids),
      policy: { cvcRetentionMs: config.cvcRetentionMs },
      audit: d.resolve<Audit>(TOKENS.Audit),
    };
    const claims = d.resolve<TokenIntentUseCases>(TOKENS.TokenIntentUseCases).claims;
    const create = new CreateToken(deps, claims);
    return {
      create,
      tokenize: new Tokenize(deps, create, config.tokenizeLimit),
      detokenize: new Detokenize(deps),
      get: new GetToken(deps),
      update: new UpdateToken(deps),
      remove: new DeleteToken(deps),
      search: new SearchTokens(deps),
      list: new ListTokens(deps),
      listByCursor: new ListTokensByCursor(deps),
      searchByCursor: new SearchTokensByCursor(deps),
    };
  }));
  c.register(TOKENS.TokenIntentUseCases, single<TokenIntentUseCases>((d) => {
    const deps: TokenIntentDeps = {
      intents: d.resolve<Store>(TOKENS.Store).tokenIntents,
      keyring: d.resolve<Keyring>(TOKENS.Keyring),
      expressions: d.resolve<ExpressionEngine>(TOKENS.Expressions),
      clock: d.resolve<Clock>(TOKENS.Clock),
      ids: d.resolve<IdGenerator>(TOKENS.Ids),
      lifetimeMs: config.tokenIntentTtlMs,
      audit: d.resolve<Audit>(TOKENS.Audit),
    };
    return {
      create: new CreateTokenIntent(deps),
      get: new GetTokenIntent(deps),
      remove: new DeleteTokenIntent(deps),
      claims: new TokenIntentClaims(deps),
    };
  }));
  c.register(TOKENS.SessionUseCases, single<SessionUseCases>((d) => {
    const deps = appDeps(d);
    return { create: new CreateSession(deps), authorize: new AuthorizeSession(deps) };
  }));
  c.register(TOKENS.Mailer, {
    useValue:
      overrides.mailer ??
      new NodemailerMailer(
        config.smtpUrl
          ? { from: config.mailFrom, smtpUrl: config.smtpUrl }
          : { from: config.mailFrom, outboxDir: join(config.dataDir, 'outbox'), maxLinkLifetimeMs: INVITATION_LIFETIME_MS },
      ),
  });
  // One queue for every invitation use case of this container: a resend, delete or acceptance of one invitation
  // finishes its store write and its outbox file before the next change of that invitation begins (see KeyedQueue).
  const invitationQueue = new KeyedQueue();
  const invitationDeps = (d: DependencyContainer): InvitationDeps => {
    const s = d.resolve<Store>(TOKENS.Store);
    return {
      invitations: s.invitations,
      members: s.members,
      users: s.users,
      tenants: s.tenants,
      applications: s.applications,
      mailer: d.resolve<Mailer>(TOKENS.Mailer),
      clock: d.resolve<Clock>(TOKENS.Clock),
      ids: d.resolve<IdGenerator>(TOKENS.Ids),
      random: d.resolve<RandomSource>(TOKENS.Random),
      publicUrl: config.publicUrl,
      queue: invitationQueue,
      audit: d.resolve<Audit>(TOKENS.Audit),
    };
  };
  c.register(TOKENS.TenantUseCases, single<TenantUseCases>((d) => {
    const s = d.resolve<Store>(TOKENS.Store);
    const members = { members: s.members, users: s.users, clock: d.resolve<Clock>(TOKENS.Clock), audit: d.resolve<Audit>(TOKENS.Audit) };
    const deps = invitationDeps(d);
    return {
      getTenant: new GetTenant({ tenants: s.tenants }),
      listMembers: new ListMembers(members),
      deleteMember: new DeleteMember(members),
      createInvitation: new CreateInvitation(deps),
      resendInvitation: new ResendInvitation(deps),
      listInvitations: new ListInvitations(deps),
      getInvitation: new GetInvitation(deps),
      deleteInvitation: new DeleteInvitation(deps),
    };
  }));
  c.register(TOKENS.AcceptInvitation, single((d) => new AcceptInvitation(invitationDeps(d))));
  c.register(TOKENS.IdempotentRequests, single((d) => new IdempotentRequests({
    idempotency: d.resolve<Store>(TOKENS.Store).idempotency,
    keyring: d.resolve<Keyring>(TOKENS.Keyring),
    clock: d.resolve<Clock>(TOKENS.Clock),
    random: d.resolve<RandomSource>(TOKENS.Random),
    ttlMs: config.idempotencyTtlMs,
  })));
  // Webhook and proxy destinations are looked up at create and update, one lookup at a time between them.
  c.register(TOKENS.UrlResolver, single<HostResolver>(() => overrides.resolver ?? new DnsHostResolver({ timeoutMs: 2_000, maxConcurrentLookups: 1 })));
  c.register(TOKENS.WebhookUseCases, single<WebhookUseCases>((d) => {
    const deps: WebhookDeps = {
      webhooks: d.resolve<Store>(TOKENS.Store).webhooks,
      keyring: d.resolve<Keyring>(TOKENS.Keyring),
      clock: d.resolve<Clock>(TOKENS.Clock),
      ids: d.resolve<IdGenerator>(TOKENS.Ids),
      random: d.resolve<RandomSource>(TOKENS.Random),
      policy: new OutboundPolicy(config.outboundAllow),
      resolver: d.resolve<HostResolver>(TOKENS.UrlResolver),
      audit: d.resolve<Audit>(TOKENS.Audit),
    };
    return {
      create: new CreateWebhook(deps),
      list: new ListWebhooks(deps),
      get: new GetWebhook(deps),
      update: new UpdateWebhook(deps),
      remove: new DeleteWebhook(deps),
      eventTypes: new ListWebhookEventTypes(),
      deliveries: new ListWebhookDeliveries({ ...deps, deliveries: d.resolve<Store>(TOKENS.Store).webhookDeliveries }),
    };
  }));
  c.register(TOKENS.ProxyUseCases, single<ProxyUseCases>((d) => {
    const store = d.resolve<Store>(TOKENS.Store);
    const readTokenRequest = (body: unknown) => createTokenInput(validate(createTokenSchema, body));
    const deps: ProxyDeps = {
      proxies: store.proxies,
      applications: store.applications,
      keyring: d.resolve<Keyring>(TOKENS.Keyring),
      clock: d.resolve<Clock>(TOKENS.Clock),
      ids: d.resolve<IdGenerator>(TOKENS.Ids),
      random: d.resolve<RandomSource>(TOKENS.Random),
      policy: new OutboundPolicy(config.outboundAllow),
      resolver: d.resolve<HostResolver>(TOKENS.UrlResolver),
      expressions: d.resolve<ExpressionEngine>(TOKENS.Expressions),
      readTokenRequest,
      audit: d.resolve<Audit>(TOKENS.Audit),
    };
    const tokens = d.resolve<TokenUseCases>(TOKENS.TokenUseCases);
    return {
      create: new CreateProxy(deps),
      list: new ListProxies(deps),
      get: new GetProxy(deps),
      update: new UpdateProxy(deps),
      remove: new DeleteProxy(deps),
      invoke: new InvokeProxy({
        ...deps,
        outbound: d.resolve<OutboundHttp>(TOKENS.OutboundHttp),
        detokenize: tokens.detokenize,
        tokenize: tokens.tokenize,
        presentToken,
        timeoutMs: config.proxyTimeoutMs,
        bodyLimitBytes: config.bodyLimitBytes,
      }),
    };
  }));
  c.register(TOKENS.Sweep, single((d) => new Sweep({
    applications: d.resolve<Store>(TOKENS.Store).applications,
    sessions: d.resolve<Store>(TOKENS.Store).sessions,
    tokens: d.resolve<Store>(TOKENS.Store).tokens,
    tokenIntents: d.resolve<Store>(TOKENS.Store).tokenIntents,
    idempotency: d.resolve<Store>(TOKENS.Store).idempotency,
    keyring: d.resolve<Keyring>(TOKENS.Keyring),
    mailer: d.resolve<Mailer>(TOKENS.Mailer),
    clock: d.resolve<Clock>(TOKENS.Clock),
    auditLog: d.resolve<Store>(TOKENS.Store).auditLog,
    webhookDeliveries: d.resolve<Store>(TOKENS.Store).webhookDeliveries,
    logRetentionMs: config.logRetentionMs,
  })));
  return c;
}
