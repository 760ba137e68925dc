import { parseArgs } from 'node:util';
import { BOOTSTRAP_FLAG, type CreateTenant, DomainError, type Keyring, type Store, ValidationError } from '@svc/core';
import { replaceMasterKeyFile } from './config/master-key';
import { ConfigError } from './config/config';
import { loadConfig } from './config/load-config';
import { createContainer, openStore } from './container';
import { presentProvisionedTenant } from './http/presenters/tenant.presenter';
import type { Logger } from './logger';
import { startServer } from './server';
import { TOKENS } from './tokens';

const USAGE = `Usage:
  svc serve                                         run the vault (configuration from SVC_* variables)
  svc tenants create --name <name> --owner-email <e> create a tenant; prints its owner and management key as JSON
  svc keys rotate                                   re-wrap every tenant data key under SVC_NEW_MASTER_KEY
                                                    (the SQLite store then keeps the new key in master.key)
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
  const server = await startServer(config);
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
    // Past the deadline the connections are cut; a store that then still does not close must not hold the exit.
    setTimeout(() => {
      logger.error('shutdown: the store did not close in time', { deadline_ms: deadlineMs });
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
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return undefined;
}

async function createTenant(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, 'owner-email': { type: 'string' } } });
  if (!values.name || !values['owner-email']) {
    process.stderr.write(`svc: --name and --owner-email are required\n\n${USAGE}`);
    return 2;
  }
  const container = await createContainer(loadConfig());
  const store = container.resolve<Store>(TOKENS.Store);
  try {
    container.resolve<Buffer>(TOKENS.MasterKey);
    const result = await container.resolve<CreateTenant>(TOKENS.CreateTenant).execute({
      name: values.name,
      ownerEmail: values['owner-email'],
    });
    // A store with a tenant is no longer empty: a later first `svc serve` must not bootstrap "Default".
    await store.system.claimOnce(BOOTSTRAP_FLAG);
    process.stdout.write(`${JSON.stringify(presentProvisionedTenant(result), null, 2)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/** Re-wraps the data keys under a new master key; tokens are not touched, so it takes a moment for any store size. */
async function rotateKeys(): Promise<number> {
  const config = loadConfig();
  const raw = process.env.SVC_NEW_MASTER_KEY?.trim() ?? '';
  const next = Buffer.from(raw, 'base64');
  if (next.length !== 32) throw new ConfigError('SVC_NEW_MASTER_KEY', 'must be 32 bytes encoded in base64 (openssl rand -base64 32)');
  // Exclusive: a server still running would keep wrapping new tenants' data keys under the old master key.
  const store = await openStore(config, { exclusive: true });
  try {
    const container = await createContainer(config, { store });
    const count = await container.resolve<Keyring>(TOKENS.Keyring).rewrap(next);
    if (config.store === 'sqlite' && !config.masterKey) replaceMasterKeyFile(config.dataDir, next);
    process.stdout.write(
      `svc: re-wrapped ${count} tenant data key(s). ${config.masterKey ? 'Set SVC_MASTER_KEY to the new key before the next start.' : 'master.key now holds the new key.'}\n`,
    );
    return 0;
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
