import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matchesQuery, type StoredToken, type TokenQuery } from '@svc/core';
import { aStoredToken } from '@svc/core/testing';
import fc from 'fast-check';
import { openConnection } from './connection';
import { openSqliteStore, type SqliteStore } from './sqlite-store';

/**
 * The SQLite store's search plans against a reference filter: a count over a broad container prefix reads the
 * prefix's containers one by one (ContainerExpansion) and keeps the range past 32 containers; a query bounded by a
 * narrow leaf or by ids counts and pages in one pass (a window count), and a page past its end still counts. Every
 * total and page must be the reference's, whatever the containers, prefixes, hashes, metadata, dates, expiries, tenants,
 * operators and pages.
 */
const dir = mkdtempSync(join(tmpdir(), 'svc-container-count-'));
const NOW = new Date('2026-01-01T00:00:00.000Z');
const EARLY = new Date('2024-06-01T00:00:00.000Z');
const DAY = 86_400_000;
const day = (n: number): Date => new Date(Date.UTC(2025, 0, 1) + n * DAY);

// Prefix look-alikes on purpose: '/a/' must not take '/ab/' or '/a0/', and '/many/' holds more than 32 containers.
const CONTAINERS = ['/a/', '/a/b/', '/a/b/c/', '/a/x/', '/ab/', '/a0/', '/b/', '/b/a/', ...Array.from({ length: 40 }, (_, i) => `/many/${i}/`)];
const PREFIXES = ['/', '/a/', '/a/b/', '/ab/', '/b/', '/many/', '/many/1', '/none/', '/a'];
const TYPES = ['token', 'card_number'] as const;
const HASHES = ['h1', 'h2', 'h3'];
const PLANS = ['gold', 'silver'];

/** Every leaf broad (threshold 0: counts expand prefixes), and the default threshold (narrow leaves page in one pass). */
let store: SqliteStore;
let narrowStore: SqliteStore;
const tokens: StoredToken[] = [];

beforeAll(async () => {
  // Every leaf counts as broad (threshold 0), so every prefix is expanded for the count.
  store = openSqliteStore({ file: join(dir, 'store.db'), broadLeafThreshold: 0, writerThread: false });
  narrowStore = openSqliteStore({ file: join(dir, 'narrow.db'), writerThread: false });
  // mulberry32, seeded: every container, type and day gets used.
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * n);
  };
  for (let i = 0; i < 600; i++) {
    const token = aStoredToken()
      .inTenant(i % 7 === 0 ? 'other' : 't1')
      .with({
        id: `tok-${String(i).padStart(4, '0')}`,
        type: TYPES[next(TYPES.length)]!,
        containers: [CONTAINERS[next(CONTAINERS.length)]!],
        createdAt: day(next(60)),
        indexHashes: HASHES.filter(() => next(2) === 0),
        metadata: { plan: PLANS[next(PLANS.length)]! },
        ...(next(6) === 0 ? { expiresAt: day(next(400)) } : {}),
      })
      .build();
    tokens.push(token);
  }
  for (const target of [store, narrowStore]) {
    const created = await target.tokens.createMany(
      tokens.map((token) => ({ token, deduplicate: false })),
      NOW,
    );
    expect(created.status).toBe('created');
  }
  expect(new Set(tokens.map((t) => t.containers[0])).size).toBe(CONTAINERS.length);
});

afterAll(async () => {
  await store.close();
  await narrowStore.close();
  rmSync(dir, { recursive: true, force: true });
});

const containerLeaf = fc.record({ kind: fc.constant('container' as const), path: fc.constantFrom(...PREFIXES), prefix: fc.constant(true) });
const leaf: fc.Arbitrary<TokenQuery> = fc.oneof(
  containerLeaf,
  containerLeaf,
  fc.record({ kind: fc.constant('container' as const), path: fc.constantFrom(...CONTAINERS), prefix: fc.constant(false) }),
  fc.record({ kind: fc.constant('term' as const), field: fc.constant('type' as const), value: fc.constantFrom(...TYPES) }),
  fc.record({ kind: fc.constant('term' as const), field: fc.constant('id' as const), value: fc.nat({ max: 620 }).map((i) => `tok-${String(i).padStart(4, '0')}`) }),
  fc.record({ kind: fc.constant('data' as const), value: fc.constantFrom(...HASHES, 'h-none') }),
  fc.record({ kind: fc.constant('metadata' as const), key: fc.constant('plan'), value: fc.constantFrom(...PLANS) }),
  fc
    .tuple(fc.nat({ max: 59 }), fc.nat({ max: 20 }))
    .map(([from, span]): TokenQuery => ({ kind: 'range', field: 'created_at', gte: day(from), lte: new Date(day(from + span).getTime() - 1) })),
);
const query: fc.Arbitrary<TokenQuery> = fc.letrec<{ q: TokenQuery }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('q'), { minLength: 2, maxLength: 3 }).map((items): TokenQuery => ({ kind: 'and', items })),
    fc.array(tie('q'), { minLength: 2, maxLength: 3 }).map((items): TokenQuery => ({ kind: 'or', items })),
    tie('q').map((item): TokenQuery => ({ kind: 'not', item })),
  ),
})).q;

describe('counting a broad container prefix by its containers', () => {
  it('gives the reference total and page for any query, on both plans, on any page (seeded)', async () => {
    await fc.assert(
      // At EARLY no token has expired yet, and the store leaves the expiry check out; at NOW some have.
      fc.asyncProperty(query, fc.integer({ min: 1, max: 4 }), fc.constantFrom(1, 7, 100), fc.constantFrom(NOW, EARLY), async (q, pageNumber, size, now) => {
        const expected = tokens
          .filter((t) => t.tenantId === 't1' && (t.expiresAt === undefined || t.expiresAt > now) && matchesQuery(t, q))
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
        for (const target of [store, narrowStore]) {
          const page = await target.tokens.search('t1', q, { page: pageNumber, size }, now);
          expect(page.total).toBe(expected.length);
          expect(page.items.map((t) => t.id)).toEqual(expected.slice((pageNumber - 1) * size, pageNumber * size).map((t) => t.id));
          expect(page.items.map((t) => t.indexHashes)).toEqual(expected.slice((pageNumber - 1) * size, pageNumber * size).map((t) => t.indexHashes));
        }
      }),
      { seed: 1_717, numRuns: 400 },
    );
  });

  it('reads only the prefix’s containers in their index for a count with a date range', () => {
    const db = openConnection(join(dir, 'store.db'));
    try {
      const plan = (sql: string, ...params: unknown[]): string =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('; ');
      // The shape the store writes for `container:/a/* AND created_at:[…]` once /a/ is expanded to its containers.
      expect(
        plan(
          'SELECT COUNT(*) FROM tokens t WHERE t.tenant_id = ? AND (t.expires_at IS NULL OR t.expires_at > ?) AND (t.container IN (?, ?) AND (t.created_at IS NOT NULL AND t.created_at >= ? AND t.created_at <= ?))',
          't1',
          0,
          '/a/',
          '/a/b/',
          0,
          1,
        ),
      ).toMatch(/USING COVERING INDEX tokens_by_container \(tenant_id=\? AND container=\? AND created_at>\? AND created_at<\?\)/);
    } finally {
      db.close();
    }
  });
});
