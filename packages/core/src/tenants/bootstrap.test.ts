import type { Application } from '../applications/application';
import { hashKey } from '../auth/api-key';
import { Bootstrap, BOOTSTRAP_DONE_FLAG, BOOTSTRAP_FLAG } from './bootstrap';
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

describe('Bootstrap after a start killed mid-way (claimed, never marked done)', () => {
  const made = { tenant: { name: 'Default' } } as unknown as ProvisionedTenant;
  async function killedMidWay(): Promise<SystemRepository> {
    const system = flags();
    await system.claimOnce(BOOTSTRAP_FLAG);
    return system;
  }
  const counting = (): { createTenant: CreateTenant; runs: () => number } => {
    let runs = 0;
    return { createTenant: { execute: async () => (runs++, made) } as unknown as CreateTenant, runs: () => runs };
  };

  it('runs again on a store this process has to itself, then marks it done', async () => {
    const system = await killedMidWay();
    const { createTenant, runs } = counting();
    const bootstrap = new Bootstrap({ system, createTenant, redoUnfinished: true });
    expect(await bootstrap.execute({ ownerEmail: 'owner@localhost' })).toBe(made);
    expect(await bootstrap.execute({ ownerEmail: 'owner@localhost' })).toBeUndefined();
    expect(runs()).toBe(1);
    expect(await system.claimOnce(BOOTSTRAP_DONE_FLAG)).toBe(false);
  });

  it('leaves it to the claimant on a store several processes share', async () => {
    const { createTenant, runs } = counting();
    expect(await new Bootstrap({ system: await killedMidWay(), createTenant }).execute({ ownerEmail: 'owner@localhost' })).toBeUndefined();
    expect(runs()).toBe(0);
  });

  it('takes a store whose preset management key already opens an application as whole, and marks it done', async () => {
    const system = await killedMidWay();
    const { createTenant, runs } = counting();
    const applications = { findByKeyHash: async (hash: string) => (hash === hashKey('key_mgt_preset') ? ({} as Application) : undefined) };
    const bootstrap = new Bootstrap({ system, createTenant, redoUnfinished: true, applications });
    expect(await bootstrap.execute({ ownerEmail: 'owner@localhost', managementKey: 'key_mgt_preset' })).toBeUndefined();
    expect(runs()).toBe(0);
    expect(await system.claimOnce(BOOTSTRAP_DONE_FLAG)).toBe(false);
    // Another preset key (the first start never got as far as its application): made again.
    const other = await killedMidWay();
    const again = new Bootstrap({ system: other, createTenant, redoUnfinished: true, applications });
    expect(await again.execute({ ownerEmail: 'owner@localhost', managementKey: 'key_mgt_other' })).toBe(made);
  });
});
