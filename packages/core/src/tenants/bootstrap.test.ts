import { Bootstrap } from './bootstrap';
import type { CreateTenant, ProvisionedTenant } from './create-tenant';
import type { SystemRepository } from './system.repository';

function flags(): SystemRepository {
  const claimed = new Set<string>();
  return {
    claimOnce: async (name) => (claimed.has(name) ? false : (claimed.add(name), true)),
    release: async (name) => {
      claimed.delete(name);
    },
  };
}

describe('Bootstrap', () => {
  it('runs once, and again only if the first attempt failed', async () => {
    const system = flags();
    let attempts = 0;
    const createTenant = {
      execute: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('the store went away');
        return { tenant: { name: 'Default' } } as unknown as ProvisionedTenant;
      },
    } as unknown as CreateTenant;
    const bootstrap = new Bootstrap({ system, createTenant });
    await expect(bootstrap.execute({ ownerEmail: 'owner@localhost' })).rejects.toThrow('the store went away');
    expect((await bootstrap.execute({ ownerEmail: 'owner@localhost' }))?.tenant.name).toBe('Default');
    expect(await bootstrap.execute({ ownerEmail: 'owner@localhost' })).toBeUndefined();
    expect(attempts).toBe(2);
  });
});
