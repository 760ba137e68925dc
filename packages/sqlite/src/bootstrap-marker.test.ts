import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConnection } from './connection';
import { migrate, SCHEMA_VERSION } from './schema';

/**
 * Migration 19 marks the bootstrap done on every store an older svc bootstrapped (or `svc tenants create` filled):
 * without it, the first start of the new svc would take such a store for one whose first start was killed mid-way
 * and make a second "Default" tenant.
 */
describe('the bootstrap marker (migration 19)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bootstrap-marker-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const flagsAfterUpgrade = (name: string, claimedBefore: boolean): string[] => {
    const db = openConnection(join(dir, `${name}.db`));
    try {
      migrate(db, SCHEMA_VERSION - 1);
      if (claimedBefore) db.prepare("INSERT INTO system_flags (name, claimed_at) VALUES ('bootstrap', 1)").run();
      migrate(db);
      return (db.prepare('SELECT name FROM system_flags ORDER BY name').pluck().all() as string[]);
    } finally {
      db.close();
    }
  };

  it('marks a store bootstrapped before the upgrade done', () => {
    expect(flagsAfterUpgrade('bootstrapped', true)).toEqual(['bootstrap', 'bootstrap-done']);
  });

  it('leaves an empty store to its first start', () => {
    expect(flagsAfterUpgrade('empty', false)).toEqual([]);
  });
});
