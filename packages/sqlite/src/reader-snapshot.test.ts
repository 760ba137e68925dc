import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuditActor, AuditEffects, type StoredToken } from '@svc/core';
import { aStoredToken } from '@svc/core/testing';
import fc from 'fast-check';
import { openConnection } from './connection';
import { openSqliteStore, type SqliteStore } from './sqlite-store';
import { TOKEN_ROW_COLUMNS, tokenRowValues, toRow } from './token-rows';

/**
 * Search readers keep one read snapshot (and its page cache) while no token write commits (TokenCommits). Every
 * search that starts after a token write was acknowledged must still see it, however the writes, the audit-only
 * commits that do not end a snapshot, and the searches interleave; and an idle reader must let its snapshot go, or the
 * WAL could never restart.
 */
const dir = mkdtempSync(join(tmpdir(), 'svc-reader-snapshot-'));
const NOW = new Date('2026-01-01T00:00:00.000Z');
const CUSTOMERS = ['c1', 'c2', 'c3'];
const actor: AuditActor = { tenantId: 't1', id: 'app-1', type: 'application', traceId: 'trace-1' };
const audit = new AuditEffects();
let n = 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Op =
  | { kind: 'create'; customer: string; day: number }
  | { kind: 'move'; index: number; customer: string }
  | { kind: 'delete'; index: number }
  | { kind: 'audit' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), customer: fc.constantFrom(...CUSTOMERS), day: fc.nat({ max: 5 }) }),
  fc.record({ kind: fc.constant('move' as const), index: fc.nat({ max: 40 }), customer: fc.constantFrom(...CUSTOMERS) }),
  fc.record({ kind: fc.constant('delete' as const), index: fc.nat({ max: 40 }) }),
  fc.constant({ kind: 'audit' as const }),
);

/** What a search of the customer's pair, or of every token, must answer after the writes so far (newest first). */
function expectedIds(tokens: Iterable<StoredToken>, customer?: string): string[] {
  return [...tokens]
    .filter((t) => customer === undefined || t.metadata.customer_id === customer)
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
    .map((t) => t.id);
}

describe('a search reader’s kept snapshot', () => {
  it('sees every token write acknowledged before the search, across audit-only commits (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => {
        const store = openSqliteStore({ file: join(dir, `store-${++n}.db`), searchReaders: 2 });
        try {
          const live = new Map<string, StoredToken>();
          const ids: string[] = [];
          const check = async (): Promise<void> => {
            // Several searches at once, so both readers open and keep snapshots.
            const [all, ...byCustomer] = await Promise.all([
              store.tokens.search('t1', { kind: 'all' }, { page: 1, size: 100 }, NOW),
              ...CUSTOMERS.map((customer) => store.tokens.search('t1', { kind: 'metadata', key: 'customer_id', value: customer }, { page: 1, size: 100 }, NOW)),
            ]);
            expect(all!.items.map((t) => t.id)).toEqual(expectedIds(live.values()));
            byCustomer.forEach((page, i) => expect(page.items.map((t) => t.id)).toEqual(expectedIds(live.values(), CUSTOMERS[i])));
          };
          await check();
          for (const step of ops) {
            if (step.kind === 'create') {
              const token = aStoredToken()
                .inTenant('t1')
                .with({ id: `tok-${ids.length}`, createdAt: new Date(NOW.getTime() - (step.day + 1) * 3_600_000), metadata: { customer_id: step.customer } })
                .build();
              expect((await store.tokens.create(token, { deduplicate: false, now: NOW })).status).toBe('created');
              ids.push(token.id);
              live.set(token.id, token);
            } else if (step.kind === 'audit') {
              await store.auditLog.append([audit.event(actor, { entityType: 'token', operation: 'search', message: 'Tokens searched' }, NOW)]);
            } else {
              const id = ids[step.index % Math.max(ids.length, 1)];
              const current = id === undefined ? undefined : await store.tokens.findById('t1', id, NOW);
              if (!current) continue;
              if (step.kind === 'delete') {
                expect(await store.tokens.delete('t1', current.id)).toBe(true);
                live.delete(current.id);
              } else {
                const moved = { ...current, metadata: { customer_id: step.customer } };
                expect((await store.tokens.update(moved, NOW)).status).toBe('updated');
                live.set(current.id, moved);
              }
            }
            await check();
          }
        } finally {
          await store.close();
        }
      }),
      { seed: 9_001, numRuns: 20 },
    );
  }, 60_000);

  describe('with a snapshot kept for up to two seconds', () => {
    let store: SqliteStore;
    let file: string;
    const total = async (): Promise<number> => (await store.tokens.search('t1', { kind: 'all' }, { page: 1, size: 5 }, NOW)).total;

    beforeEach(async () => {
      file = join(dir, `store-${++n}.db`);
      store = openSqliteStore({ file, searchReaders: 1, readerSnapshotMs: 2_000 });
      await store.tokens.create(aStoredToken().inTenant('t1').build(), { deduplicate: false, now: NOW });
    });

    afterEach(async () => {
      await store.close();
    });

    it('keeps it across commits that change no token, and lets it go after that time', async () => {
      expect(await total()).toBe(1);
      // A token written behind the store's back (another process) is not counted: the kept snapshot does not see it…
      const other = openConnection(file);
      try {
        other
          .prepare(`INSERT INTO tokens (${TOKEN_ROW_COLUMNS.join(', ')}) VALUES (${TOKEN_ROW_COLUMNS.map(() => '?').join(', ')})`)
          .run(...tokenRowValues(toRow(aStoredToken().inTenant('t1').build())));
        await store.auditLog.append([audit.event(actor, { entityType: 'token', operation: 'search', message: 'Tokens searched' }, NOW)]);
        expect(await total()).toBe(1);
        // …until the snapshot's time is up.
        await new Promise((resolve) => setTimeout(resolve, 2_100));
        expect(await total()).toBe(2);
        // A token write through the store ends the snapshot at once.
        await store.tokens.create(aStoredToken().inTenant('t1').build(), { deduplicate: false, now: NOW });
        expect(await total()).toBe(3);
      } finally {
        other.close();
      }
    });

    it('lets an idle reader’s snapshot go, so that the WAL can restart', async () => {
      expect(await total()).toBe(1);
      const other = openConnection(file);
      try {
        const truncate = (): number => (other.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0]!.busy;
        other.pragma('busy_timeout = 0');
        // The reader's snapshot sits inside the WAL (the token above is in it): the WAL cannot be emptied under it.
        expect(truncate()).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 2_100));
        expect(truncate()).toBe(0);
      } finally {
        other.close();
      }
    });
  });
});
