import type { ApplicationRepository } from '../applications/application.repository';
import { hashKey } from '../auth/api-key';
import type { CreateTenant, ProvisionedTenant } from './create-tenant';
import type { SystemRepository } from './system.repository';

export const BOOTSTRAP_FLAG = 'bootstrap';
/** Claimed once the bootstrap's tenant, owner and management application all exist. */
export const BOOTSTRAP_DONE_FLAG = 'bootstrap-done';

export interface BootstrapInput {
  readonly ownerEmail: string;
  /** SVC_BOOTSTRAP_API_KEY: installed as the management key instead of a generated one. */
  readonly managementKey?: string | undefined;
}

export interface BootstrapDeps {
  readonly system: SystemRepository;
  readonly createTenant: CreateTenant;
  /**
   * The store serves this process alone (SQLite holds its lock; memory): a bootstrap that an earlier start claimed
   * and did not finish (killed mid-way) is run again. With several processes on one store (MongoDB), another may be
   * running it right now, so it is left to the claimant.
   */
  readonly redoUnfinished?: boolean;
  /** Finds the preset management key of a bootstrap that got as far as its application before it was killed. */
  readonly applications?: Pick<ApplicationRepository, 'findByKeyHash'>;
}

/**
 * First start on an empty store: the "Default" tenant, its OWNER and a management application. Runs at most
 * once per store, even when several processes start together (the claim is atomic in every store). Its writes are
 * several; the store is marked done only after the last, so on a store this process has to itself a start killed in
 * between is finished by the next start: it makes "Default" again (the half-made one has no application, so nothing
 * opens it) and shows its key.
 */
export class Bootstrap {
  constructor(private readonly deps: BootstrapDeps) {}

  /** The provisioned tenant on the first run; undefined when the store was bootstrapped before. */
  async execute(input: BootstrapInput): Promise<ProvisionedTenant | undefined> {
    const { system } = this.deps;
    if (!(await system.claimOnce(BOOTSTRAP_FLAG))) {
      if (!this.deps.redoUnfinished) return undefined;
      // Done before: nothing to do. Not done: give the probe's claim back, and bootstrap again below.
      if (!(await system.claimOnce(BOOTSTRAP_DONE_FLAG))) return undefined;
      // Its last write, the application with the preset key, made it: the store is whole, only unmarked. (Its key is
      // the operator's own, so nothing was lost by not printing it.)
      if (input.managementKey !== undefined && (await this.deps.applications?.findByKeyHash(hashKey(input.managementKey)))) return undefined;
      await system.release(BOOTSTRAP_DONE_FLAG);
    }
    let provisioned: ProvisionedTenant;
    try {
      provisioned = await this.deps.createTenant.execute({ name: 'Default', ownerEmail: input.ownerEmail, managementKey: input.managementKey });
    } catch (error) {
      // A failed bootstrap (store error, bad owner e-mail) must not leave the store claimed and empty for good.
      await system.release(BOOTSTRAP_FLAG);
      throw error;
    }
    await system.claimOnce(BOOTSTRAP_DONE_FLAG);
    return provisioned;
  }
}
