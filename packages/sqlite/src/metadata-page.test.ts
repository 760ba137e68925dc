import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matchesQuery, type StoredToken, type TokenQuery } from '@svc/core';
import { aStoredToken } from '@svc/core/testing';
import fc from 'fast-check';
import { openConnection } from './connection';
import { migrate, SCHEMA_VERSION } from './schema';
import { openSqliteStore } from './sqlite-store';
import { TOKEN_ROW_COLUMNS, tokenRowValues, toRow } from './token-rows';

/**
 * A search for one narrow metadata pair (a customer's tokens), or for a pair of one type within a date range or not,
 * is counted and sorted in the pair's own entries, which carry their token's type and created_at. The entries must
 * follow every write: creates, metadata changed by an update (the pair moves, the date and type stay), deletes, and a
 * store migrated from before those columns. Every total and page must be the reference's, ties on created_at
 * included, with and without expired tokens in the store.
 */
const dir = mkdtempSync(join(tmpdir(), 'svc-metadata-page-'));
const NOW = new Date('2026-01-01T00:00:00.000Z');
const EARLY = new Date('2024-06-01T00:00:00.000Z');
const DAY = 86_400_000;
const day = (n: number): Date => new Date(Date.UTC(2025, 0, 1) + n * DAY);
const CUSTOMERS = ['c1', 'c2', 'c3', 'c4'];
const TYPES = ['token', 'card_number', 'social_security_number'] as const;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The live tokens of tenant t1 the query matches, newest first (ties by id, descending), as the search must page them. */
function expected(tokens: Iterable<StoredToken>, query: TokenQuery, now: Date): StoredToken[] {
  return [...tokens]
    .filter((t) => t.tenantId === 't1' && matchesQuery(t, query) && (t.expiresAt === undefined || t.expiresAt > now))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
}

/** A customer's pair alone, or with a type, or with a type and a range of days (bounds open or closed), in any order. */
function queries(customer: string, type: string, from: number, to: number): TokenQuery[] {
  const pair: TokenQuery = { kind: 'metadata', key: 'customer_id', value: customer };
  const ofType: TokenQuery = { kind: 'term', field: 'type', value: type };
  return [
    pair,
    { kind: 'and', items: [pair, ofType] },
    { kind: 'and', items: [ofType, { kind: 'range', field: 'created_at', gte: day(from), lte: day(to) }, pair] },
    { kind: 'and', items: [{ kind: 'range', field: 'created_at', gt: day(from), lt: day(to) }, pair, ofType] },
    { kind: 'and', items: [pair, ofType, { kind: 'range', field: 'created_at', gte: day(from) }] },
  ];
}

type Step = { kind: 'move'; index: number; customer: string } | { kind: 'delete'; index: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), index: fc.nat({ max: 59 }), customer: fc.constantFrom(...CUSTOMERS, 'c9') }),
  fc.record({ kind: fc.constant('delete' as const), index: fc.nat({ max: 59 }) }),
);

describe('a search for one metadata pair', () => {
  let run = 0;

  it('pages and counts as the reference after creates, metadata changes and deletes (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            customer: fc.constantFrom(...CUSTOMERS),
            type: fc.constantFrom(...TYPES),
            day: fc.nat({ max: 9 }),
            expires: fc.option(fc.nat({ max: 600 }), { nil: undefined }),
            other: fc.boolean(),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        fc.array(step, { maxLength: 20 }),
        fc.constantFrom(...TYPES),
        fc.nat({ max: 9 }),
        fc.nat({ max: 9 }),
        async (specs, steps, type, from, span) => {
          const store = openSqliteStore({ file: join(dir, `run-${run++}.db`), writerThread: false });
          try {
            const live = new Map<string, StoredToken>();
            const tokens = specs.map((spec, i) =>
              aStoredToken()
                .inTenant(spec.other ? 'other' : 't1')
                .with({
                  id: `tok-${String(i).padStart(3, '0')}`,
                  type: spec.type,
                  // Ten days for up to sixty tokens: many share a created_at, and the id breaks the tie.
                  createdAt: day(spec.day),
                  metadata: { customer_id: spec.customer, plan: 'gold' },
                  ...(spec.expires === undefined ? {} : { expiresAt: day(spec.expires) }),
                })
                .build(),
            );
            expect((await store.tokens.createMany(tokens.map((token) => ({ token, deduplicate: false })), EARLY)).status).toBe('created');
            for (const token of tokens) live.set(token.id, token);
            for (const s of steps) {
              const target = tokens[s.index % tokens.length]!;
              const current = await store.tokens.findById(target.tenantId, target.id, EARLY);
              if (!current) continue;
              if (s.kind === 'delete') {
                expect(await store.tokens.delete(current.tenantId, current.id)).toBe(true);
                live.delete(current.id);
              } else {
                const moved = { ...current, metadata: { ...current.metadata, customer_id: s.customer } };
                expect((await store.tokens.update(moved, EARLY)).status).toBe('updated');
                live.set(current.id, moved);
              }
            }
            // At EARLY nothing has expired (the pair's entries answer); at NOW some may have (the general plan does).
            for (const now of [EARLY, NOW]) {
              for (const query of [...CUSTOMERS, 'c9', 'nobody'].flatMap((customer) => queries(customer, type, from, from + span))) {
                const all = expected(live.values(), query, now);
                for (const [pageNumber, size] of [[1, 1], [1, 7], [2, 7], [3, 5], [1, 100], [9, 10]] as const) {
                  const page = await store.tokens.search('t1', query, { page: pageNumber, size }, now);
                  expect(page.total).toBe(all.length);
                  expect(page.items.map((t) => t.id)).toEqual(all.slice((pageNumber - 1) * size, pageNumber * size).map((t) => t.id));
                  expect(page.items.map((t) => t.metadata)).toEqual(all.slice((pageNumber - 1) * size, pageNumber * size).map((t) => t.metadata));
                }
              }
            }
          } finally {
            await store.close();
          }
        },
      ),
      { seed: 4_242, numRuns: 30 },
    );
    // Thirty stores opened on real files: about 2 s on a quiet machine, past jest's 5 s default on a loaded one.
  }, 60_000);

  it('follows a token whose update changes its type, on both plans', async () => {
    const store = openSqliteStore({ file: join(dir, 'retyped.db'), writerThread: false });
    try {
      const token = aStoredToken().inTenant('t1').with({ type: 'token', metadata: { customer_id: 'c1' } }).build();
      await store.tokens.create(token, { deduplicate: false, now: EARLY });
      const current = (await store.tokens.findById('t1', token.id, EARLY))!;
      expect((await store.tokens.update({ ...current, type: 'card_number' }, EARLY)).status).toBe('updated');
      const pair: TokenQuery = { kind: 'metadata', key: 'customer_id', value: 'c1' };
      for (const [type, found] of [['card_number', 1], ['token', 0]] as const) {
        const ofType: TokenQuery = { kind: 'term', field: 'type', value: type };
        // The pair-of-type range, and the general plan (a container leaf beside it).
        for (const query of [{ kind: 'and', items: [pair, ofType] }, { kind: 'and', items: [pair, ofType, { kind: 'container', path: '/', prefix: true }] }] as TokenQuery[]) {
          const page = await store.tokens.search('t1', query, { page: 1, size: 5 }, EARLY);
          expect({ type, total: page.total, types: page.items.map((t) => t.type) }).toEqual({ type, total: found, types: found ? [type] : [] });
        }
      }
    } finally {
      await store.close();
    }
  });

  it('refuses a store that a newer svc migrated, and leaves it as it was', async () => {
    const file = join(dir, 'newer.db');
    await openSqliteStore({ file, writerThread: false }).close();
    const db = openConnection(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openSqliteStore({ file, writerThread: false })).toThrow(/migrated by a newer svc \(schema version \d+; this svc knows up to \d+\)/);
    const after = openConnection(file);
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    after.close();
  });

  it('gives pairs stored before the columns their token’s type and created_at, and drops pairs whose token is gone', async () => {
    const file = join(dir, 'before-created-at.db');
    const old = openConnection(file);
    migrate(old, 17);
    const insertToken = old.prepare(`INSERT INTO tokens (${TOKEN_ROW_COLUMNS.join(', ')}) VALUES (${TOKEN_ROW_COLUMNS.map(() => '?').join(', ')})`);
    const insertPair = old.prepare('INSERT INTO token_metadata (tenant_id, key, value, token_id) VALUES (?, ?, ?, ?)');
    const tokens = [3, 1, 2, 1].map((d, i) =>
      aStoredToken()
        .inTenant('t1')
        .with({ id: `old-${i}`, type: TYPES[i % 2]!, createdAt: day(d), metadata: { customer_id: 'c1' } })
        .build(),
    );
    for (const token of tokens) {
      insertToken.run(...tokenRowValues(toRow(token)));
      insertPair.run('t1', 'customer_id', 'c1', token.id);
    }
    insertPair.run('t1', 'customer_id', 'c1', 'deleted-long-ago');
    old.close();

    const store = openSqliteStore({ file, writerThread: false });
    try {
      const page = await store.tokens.search('t1', { kind: 'metadata', key: 'customer_id', value: 'c1' }, { page: 1, size: 3 }, EARLY);
      expect(page.total).toBe(4);
      expect(page.items.map((t) => t.id)).toEqual(['old-0', 'old-2', 'old-3']);
      expect(store.db.prepare("SELECT token_id, type, created_at FROM token_metadata WHERE tenant_id = 't1' ORDER BY token_id").all()).toEqual(
        tokens.map((t) => ({ token_id: t.id, type: t.type, created_at: t.createdAt.getTime() })).sort((a, b) => (a.token_id < b.token_id ? -1 : 1)),
      );
      const ofType = await store.tokens.search(
        't1',
        { kind: 'and', items: [{ kind: 'term', field: 'type', value: tokens[2]!.type }, { kind: 'metadata', key: 'customer_id', value: 'c1' }] },
        { page: 1, size: 10 },
        EARLY,
      );
      expect(ofType.items.map((t) => t.id)).toEqual(expected(tokens, { kind: 'metadata', key: 'customer_id', value: 'c1' }, EARLY).filter((t) => t.type === tokens[2]!.type).map((t) => t.id));
    } finally {
      await store.close();
    }
  });
});
