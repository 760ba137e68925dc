import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bootstrap, ProvisionedTenant, Sweep } from '@svc/core';
import type { DependencyContainer } from 'tsyringe';
import type { Config } from './config/config';
import { type ContainerOverrides, createContainer, openStore } from './container';
import { createApp } from './http/app';
import type { Logger } from './logger';
import { TOKENS } from './tokens';

export interface RunningServer {
  readonly url: string;
  readonly container: DependencyContainer;
  /** Stops accepting connections, lets in-flight requests finish, stops the sweeper and closes the store. */
  close(): Promise<void>;
}

/** The first-run banner: the only place a generated management key is ever shown. */
export function bootstrapBanner(result: ProvisionedTenant, presetKey: boolean): string {
  const lines = [
    '',
    `svc: first start: created tenant "${result.tenant.name}" (${result.tenant.id})`,
    `     owner: ${result.owner.user.email}; management application: ${result.management.application.id}`,
    presetKey
      ? '     management key: the value of SVC_BOOTSTRAP_API_KEY'
      : `     management key (shown once, store it now): ${result.management.key}`,
    '     use it in the SVC-API-KEY header, e.g. curl -H "SVC-API-KEY: <key>" <url>/applications/key',
    '',
  ];
  return lines.join('\n');
}

function startSweeper(sweep: Sweep, intervalMs: number, logger: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweep
      .execute()
      .then((report) => logger.debug('sweep', { ...report }))
      .catch((error: unknown) => logger.error('sweep failed', { error: error instanceof Error ? error.name : 'unknown' }))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

function listen(server: Server, config: Config): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve(server.address() as AddressInfo));
  });
}

/** Opens the store, bootstraps an empty one, starts the sweeper and serves the API. */
export async function startServer(
  config: Config,
  overrides: ContainerOverrides = {},
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<RunningServer> {
  const store = overrides.store ?? (await openStore(config, { exclusive: true }));
  let stopSweeper = (): void => undefined;
  let container: DependencyContainer, real: Server, url: string;
  try {
    container = await createContainer(config, { ...overrides, store });
    const logger = container.resolve<Logger>(TOKENS.Logger);
    container.resolve<Buffer>(TOKENS.MasterKey);
    const bootstrapped = await container
      .resolve<Bootstrap>(TOKENS.Bootstrap)
      .execute({ ownerEmail: config.ownerEmail, managementKey: config.bootstrapApiKey });
    if (bootstrapped) print(bootstrapBanner(bootstrapped, config.bootstrapApiKey !== undefined));
    stopSweeper = startSweeper(container.resolve<Sweep>(TOKENS.Sweep), config.sweepIntervalMs, logger);
    real = createServer(createApp(container));
    real.keepAliveTimeout = 65_000;
    const address = await listen(real, config);
    url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    logger.info('listening', { url, store: config.store });
  } catch (error) {
    // A start that fails (a wrong master key, a taken port) leaves nothing running and releases the store's claim.
    stopSweeper();
    if (!overrides.store) await store.close().catch(() => undefined);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    container,
    close: () =>
      (closing ??= (async () => {
        stopSweeper();
        await new Promise<void>((resolve) => {
          real.close(() => resolve());
          real.closeIdleConnections();
        });
        await store.close();
      })()),
  };
}
