/** A tenant: the boundary of every operation. Objects of one tenant are invisible to every other. */
export interface Tenant {
  readonly id: string;
  readonly name: string;
  /** The user who owns the tenant (its OWNER member). */
  readonly ownerId: string;
  readonly createdAt: Date;
}

export interface TenantRepository {
  create(tenant: Tenant): Promise<void>;
  findById(id: string): Promise<Tenant | undefined>;
}
