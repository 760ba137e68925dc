import type { CreateTenant, ProvisionedTenant } from './create-tenant';
import type { SystemRepository } from './system.repository';

export const BOOTSTRAP_FLAG = 'bootstrap';

export interface BootstrapInput {
  readonly ownerEmail: string;
  /** SVC_BOOTSTRAP_API_KEY: installed as the management key instead of a generated one. */
  readonly managementKey?: string | undefined;
}

/**
 * First start on an empty store: the "Default" tenant, its OWNER and a management application. Runs at most
 * once per store, even when several processes start together (the claim is atomic in every store).
 */
export class Bootstrap {
  constructor(private readonly deps: { readonly system: SystemRepository; readonly createTenant: CreateTenant }) {}

  /** The provisioned tenant on the first run; undefined when the store was bootstrapped before. */
  async execute(input: BootstrapInput): Promise<ProvisionedTenant | undefined> {
    if (!(await this.deps.system.claimOnce(BOOTSTRAP_FLAG))) return undefined;
    try {
      return await this.deps.createTenant.execute({ name: 'Default', ownerEmail: input.ownerEmail, managementKey: input.managementKey });
    } catch (error) {
      // A failed bootstrap (store error, bad owner e-mail) must not leave the store claimed and empty for good.
      await this.deps.system.release(BOOTSTRAP_FLAG);
      throw error;
    }
  }
}
