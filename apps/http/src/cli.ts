import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BOOTSTRAP_DONE_FLAG,
  BOOTSTRAP_FLAG,
  CHAIN_GRACE_MS,
  type CreateTenant,
  DataKeyNotFoundError,
  DomainError,
  type Keyring,
  type Store,
  type StreamVerdict,
  SYSTEM_AUDIT_STREAM,
  ValidationError,
} from '@svc/core';
import { type Config, ConfigError } from './config/config';
import { replaceMasterKeyFile } from './config/master-key';
import { loadConfig } from './config/load-config';
import { backup, restore } from './backup-commands';
import { type AuditLogUseCases, createContainer, openStore } from './container';
import { presentProvisionedTenant } from './http/presenters/tenant.presenter';
import type { Logger } from './logger';
import { ProgressLine } from './progress';
import { startServer } from './server';
import { TOKENS } from './tokens';

const USAGE = `Usage:
  svc serve                                         run the vault (configuration from SVC_* variables)
  svc tenants create --name <name> --owner-email <e> create a tenant; prints its owner and management key as JSON
  svc keys rotate                                   re-wrap every tenant data key under SVC_NEW_MASTER_KEY
                                                    (the SQLite store then keeps the new key in master.key)
  svc audit verify [--tenant <id>]                  walk each tenant's audit chain; name the first event altered,
                                                    removed or reordered (exit 1 when one is found)
  svc backup <file> [--force]                       copy the SQLite store to <file>, consistent, also while svc serve
                                                    runs; --force replaces an existing <file>. The master key is not
                                                    in the backup: keep it apart
  svc restore <file>                                restore a backup into an empty SVC_DATA_DIR (master.key may be
                                                    there); SVC_MASTER_KEY or master.key must be the backed-up key
  svc help                                          this text
`;

/**
 * Serves until SIGTERM or SIGINT, then drains (see RunningServer.close) and exits 0; 1 when the drain outlived
 * SVC_SHUTDOWN_TIMEOUT (default 10s) and connections had to be cut, when the store failed to close, or on a second
 * signal, which exits at once.
 */
async function serve(): Promise<number | undefined> {
  const config = loadConfig();
  const deadlineMs = config.shutdownTimeoutMs;
  // A signal during the start (the store opening, a first start's bootstrap and its one-time key) is held, and the
  // server shuts down cleanly once started, instead of dying between the bootstrap's commit and its banner. One
  // listener stays on throughout: removing the last listener of a signal stops Node watching it, and a signal that
  // arrived meanwhile would be lost.
  let early: NodeJS.Signals | undefined;
  let onSignal = (signal: NodeJS.Signals): void => {
    early ??= signal;
  };
  const listener = (signal: NodeJS.Signals): void => onSignal(signal);
  process.on('SIGTERM', listener);
  process.on('SIGINT', listener);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config);
  } catch (error) {
    process.off('SIGTERM', listener);
    process.off('SIGINT', listener);
    throw error;
  }
  const logger = server.container.resolve<Logger>(TOKENS.Logger);
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.error('second signal during shutdown: exiting without draining', { signal });
      process.exit(1);
    }
    stopping = true;
    const started = performance.now();
    const done = server.close({ deadlineMs });
    logger.info('shutting down', { signal, deadline_ms: deadlineMs });
    // Past the deadline the connections are cut; background work or a store that then still does not finish must not
    // hold the exit.
    setTimeout(() => {
      logger.error('shutdown: did not finish in time (background work or the store)', { deadline_ms: deadlineMs });
      process.exit(1);
    }, deadlineMs + 5_000).unref();
    done.then(
      ({ forced }) => {
        logger.info('shut down', { duration_ms: Math.round(performance.now() - started), forced });
        process.exit(forced ? 1 : 0);
      },
      (error: unknown) => {
        logger.error('shutdown failed', { error: error instanceof Error ? error.name : 'unknown' });
        process.exit(1);
      },
    );
  };
  onSignal = shutdown;
  if (early) shutdown(early);
  return undefined;
}

async function createTenant(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, 'owner-email': { type: 'string' } } });
  if (!values.name || !values['owner-email']) {
    process.stderr.write(`svc: --name and --owner-email are required\n\n${USAGE}`);
    return 2;
  }
  // A fresh store gets a master key here; an existing one must come with the key that opens its data keys.
  const container = await createContainer(loadConfig(), {}, { createMasterKey: true });
  const store = container.resolve<Store>(TOKENS.Store);
  try {
    const result = await container.resolve<CreateTenant>(TOKENS.CreateTenant).execute({
      name: values.name,
      ownerEmail: values['owner-email'],
    });
    // A store with a tenant is no longer empty: a later first `svc serve` must not bootstrap "Default".
    await store.system.claimOnce(BOOTSTRAP_FLAG);
    await store.system.claimOnce(BOOTSTRAP_DONE_FLAG);
    // The new tenant's events get their places now: no server may be running to chain them.
    await container.resolve<AuditLogUseCases>(TOKENS.AuditLogUseCases).chain.execute();
    process.stdout.write(`${JSON.stringify(presentProvisionedTenant(result), null, 2)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * A command that reads or re-keys a store never creates one: on SQLite, a data dir without svc.db is refused (exit 1)
 * and left as it is. Returns whether the store is there.
 */
function storeExists(config: Config, purpose: string): boolean {
  if (config.store !== 'sqlite') return true;
  const file = join(config.dataDir, 'svc.db');
  if (existsSync(file)) return true;
  process.stderr.write(`svc: there is no store to ${purpose}: ${file} does not exist (check SVC_DATA_DIR)\n`);
  return false;
}

/** Re-wraps the data keys under a new master key; tokens are not touched, so it takes a moment for any store size. */
async function rotateKeys(): Promise<number> {
  const config = loadConfig();
  const raw = process.env.SVC_NEW_MASTER_KEY?.trim() ?? '';
  const next = Buffer.from(raw, 'base64');
  if (next.length !== 32) throw new ConfigError('SVC_NEW_MASTER_KEY', 'must be 32 bytes encoded in base64 (openssl rand -base64 32)');
  if (!storeExists(config, 'rotate')) return 1;
  // Exclusive: a server still running would keep wrapping new tenants' data keys under the old master key.
  const store = await openStore(config, { exclusive: true });
  try {
    // A rotation cut short left some data keys under the new key: they pass the check, and rewrap skips them.
    const container = await createContainer(config, { store }, { rotatingTo: next });
    const line = new ProgressLine('keys rotate', 'keys');
    const count = await container.resolve<Keyring>(TOKENS.Keyring).rewrap(next, (done, total) => line.update(done, total));
    line.done();
    if (config.store === 'sqlite' && !config.masterKey) replaceMasterKeyFile(config.dataDir, next);
    process.stdout.write(
      `svc: re-wrapped ${count} tenant data key(s). ${config.masterKey ? 'Set SVC_MASTER_KEY to the new key before the next start.' : 'master.key now holds the new key.'}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

const PROBLEMS = {
  altered: 'altered (its hash does not match its content)',
  removed: 'preceded by a removed event (a gap in the chain)',
  reordered: 'reordered (its link names another event than the one before it)',
} as const;

/**
 * Walks every tenant's audit chain (or one tenant's) from its retention anchor and names the first event altered,
 * removed or reordered, and events left unchained past the grace period. Safe beside a running server: it only reads.
 */
async function verifyAudit(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { tenant: { type: 'string' } } });
  const config = loadConfig();
  if (!storeExists(config, 'verify')) return 1;
  // Read-only: no master key is generated and no data key is made (a tenant id that has none has no chained events).
  const container = await createContainer(config, {}, { readOnly: true });
  const store = container.resolve<Store>(TOKENS.Store);
  try {
    let verdicts: readonly StreamVerdict[];
    try {
      verdicts = await container.resolve<AuditLogUseCases>(TOKENS.AuditLogUseCases).verify.execute(values.tenant);
    } catch (error) {
      if (!(error instanceof DataKeyNotFoundError)) throw error;
      const name = error.tenantId === SYSTEM_AUDIT_STREAM ? 'the system stream' : `tenant ${error.tenantId}`;
      process.stdout.write(
        values.tenant !== undefined
          ? `svc: tenant ${values.tenant} has no audit events: check the id\n`
          : `svc: ${name} has audit events but no data key, so its chain cannot be verified\n`,
      );
      return 1;
    }
    let failed = 0;
    for (const v of verdicts) {
      const name = v.tenantId === SYSTEM_AUDIT_STREAM ? 'system stream' : `tenant ${v.tenantId}`;
      if (v.ok) {
        const from = v.anchor.chainSeq > 0 ? ` after the retention anchor at chain_seq ${v.anchor.chainSeq}` : '';
        process.stdout.write(`svc: ${name}: ok, ${v.checked} event(s) verified${from}; head chain_seq ${v.head.chainSeq} hash ${v.head.hash || '-'}\n`);
      } else if (v.problem === 'truncated') {
        failed++;
        process.stdout.write(`svc: ${name}: FAILED at chain_seq ${v.chainSeq}: the chain ends before the head recorded when its events were chained (its newest events were removed); ${v.checked} event(s) before it verified\n`);
      } else if (v.problem === 'unchained') {
        failed++;
        process.stdout.write(`svc: ${name}: FAILED: ${v.count} event(s) still unchained after ${CHAIN_GRACE_MS / 1000}s (the chainer stalled, or rows were inserted behind svc's back)\n`);
      } else {
        failed++;
        process.stdout.write(`svc: ${name}: FAILED at chain_seq ${v.chainSeq}: event ${v.eventId} is ${PROBLEMS[v.problem]}; ${v.checked} event(s) before it verified\n`);
      }
    }
    if (verdicts.length === 0) process.stdout.write('svc: the audit log is empty\n');
    // Every tenant has events from its creation on: none at all for the one named is a wrong id, not a clean chain.
    const [only] = verdicts;
    if (values.tenant !== undefined && only?.ok && only.checked === 0 && only.anchor.chainSeq === 0) {
      process.stdout.write(`svc: tenant ${values.tenant} has no audit events: check the id\n`);
      return 1;
    }
    return failed === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

/** Runs one command; resolves to an exit code, or undefined while a server keeps the process alive. */
export async function main(argv: string[]): Promise<number | undefined> {
  const [command, sub, ...rest] = argv;
  try {
    if (command === 'serve') return await serve();
    if (command === 'tenants' && sub === 'create') return await createTenant(rest);
    if (command === 'keys' && sub === 'rotate') return await rotateKeys();
    if (command === 'audit' && sub === 'verify') return await verifyAudit(rest);
    if (command === 'backup') return await backup(argv.slice(1), USAGE);
    if (command === 'restore') return await restore(argv.slice(1), USAGE);
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(USAGE);
      return 0;
    }
    process.stderr.write(`svc: unknown command '${argv.join(' ')}'\n\n${USAGE}`);
    return 2;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: invalid configuration: ${error.message}\n`);
      return 78;
    }
    if (error instanceof ValidationError) {
      const details = Object.entries(error.errors).map(([field, messages]) => `${field}: ${messages.join(' ')}`);
      process.stderr.write(`svc: ${details.join('; ')}\n`);
      return 2;
    }
    if (error instanceof DomainError) {
      process.stderr.write(`svc: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
