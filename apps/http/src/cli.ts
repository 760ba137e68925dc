import { parseArgs } from 'node:util';
import { BOOTSTRAP_FLAG, type CreateTenant, DomainError, type Store, ValidationError } from '@svc/core';
import { ConfigError } from './config/config';
import { loadConfig } from './config/load-config';
import { buildContainer } from './container';
import { presentProvisionedTenant } from './http/presenters/tenant.presenter';
import { startServer } from './server';
import { TOKENS } from './tokens';

const USAGE = `Usage:
  svc serve                                         run the vault (configuration from SVC_* variables)
  svc tenants create --name <name> --owner-email <e> create a tenant; prints its owner and management key as JSON
  svc help                                          this text
`;

async function serve(): Promise<number | undefined> {
  const server = await startServer(loadConfig());
  const shutdown = (signal: string): void => {
    process.stdout.write(`svc: ${signal} received, shutting down\n`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return undefined;
}

async function createTenant(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, 'owner-email': { type: 'string' } } });
  if (!values.name || !values['owner-email']) {
    process.stderr.write(`svc: --name and --owner-email are required\n\n${USAGE}`);
    return 2;
  }
  const container = buildContainer(loadConfig());
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

/** Runs one command; resolves to an exit code, or undefined while a server keeps the process alive. */
export async function main(argv: string[]): Promise<number | undefined> {
  const [command, sub, ...rest] = argv;
  try {
    if (command === 'serve') return await serve();
    if (command === 'tenants' && sub === 'create') return await createTenant(rest);
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
