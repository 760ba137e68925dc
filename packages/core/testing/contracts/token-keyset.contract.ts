import { parseTokenQuery } from '../../src/search/parse-query';
import type { TokenQuery } from '../../src/search/token-query';
import type { KeysetPage, KeysetPosition } from '../../src/shared/keyset';
import type { Store } from '../../src/shared/store';
import type { StoredToken } from '../../src/tokens/token';
import { aStoredToken } from '../builders';
import { OTHER_SEARCH_TENANT, SEARCH_CASES, SEARCH_NOW, SEARCH_TENANT, searchCorpus } from './search.contract';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-0000000000a1';
const T2 = '22222222-0000-4000-8000-0000000000a2';
const NOW = new Date('2026-03-01T00:00:00.000Z');
const ALL: TokenQuery = { kind: 'all' };
/** Milliseconds after 2026-01-01: tokens of the same `at` share their creation instant to the millisecond. */
const at = (ms: number): Date => new Date(Date.UTC(2026, 0, 1) + ms);

const positionOf = (token: StoredToken): KeysetPosition => ({ createdAt: token.createdAt, id: token.id });
const newestFirst = (a: StoredToken, b: StoredToken): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** How many times each id was seen. */
function tally(ids: readonly string[]): Map<string, number> {
  const seen = new Map<string, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  return seen;
}

/**
 * Keyset paging (GET /v2/tokens, POST /v2/tokens/search): newest first with ids breaking ties, every token exactly
 * once from page to page while tokens are created, the query and expiry applied, one tenant's tokens only.
 */
export function describeTokenKeysetContract(open: () => Promise<Store>): void {
  // Hooks inside this describe: at the caller's level, every test of the whole suite would open a store for it too.
  describe('token keyset paging', () => {
    const store = useStore(open);
    const create = async (token: StoredToken): Promise<void> => {
      expect(await store().tokens.create(token, { deduplicate: false, now: token.createdAt })).toEqual({ status: 'created' });
    };
    const token = (id: string, ms: number, patch: Partial<StoredToken> = {}, tenant = T1): StoredToken =>
      aStoredToken().inTenant(tenant).with({ id, createdAt: at(ms), ...patch }).build();
    const page = (query: TokenQuery, size: number, after?: KeysetPosition, tenant = T1, now = NOW): Promise<KeysetPage<StoredToken>> =>
      store().tokens.searchAfter(tenant, query, { after, size }, now);

    /** Walks every page; `between` runs after each page but the last. Returns the pages' ids in order. */
    async function walk(query: TokenQuery, size: number, between?: (page: number) => Promise<void>, tenant = T1): Promise<string[]> {
      const ids: string[] = [];
      let after: KeysetPosition | undefined;
      for (let n = 0; n < 1_000; n++) {
        const found = await page(query, size, after, tenant);
        expect(found.items.length).toBeLessThanOrEqual(size);
        ids.push(...found.items.map((t) => t.id));
        if (!found.hasMore) return ids;
        expect(found.items).toHaveLength(size);
        after = positionOf(found.items[found.items.length - 1]!);
        await between?.(n);
      }
      throw new Error('the walk did not end');
    }

    it('pages newest first, ids breaking ties of the same millisecond, each token exactly once', async () => {
      // 25 tokens over 4 instants: most pages start and end inside a run of equal created_at.
      const tokens = Array.from({ length: 25 }, (_, i) => token(`tie-${String((i * 7) % 25).padStart(2, '0')}`, i % 4));
      for (const t of tokens) await create(t);
      const expected = [...tokens].sort(newestFirst).map((t) => t.id);
      for (const size of [1, 3, 4, 25, 100]) expect(await walk(ALL, size)).toEqual(expected);
    });

    it('says no more follow on a page that ends exactly at the last token, and answers nothing after it', async () => {
      for (let i = 0; i < 8; i++) await create(token(`full-${i}`, 0));
      const first = await page(ALL, 4);
      expect(first.hasMore).toBe(true);
      const second = await page(ALL, 4, positionOf(first.items[3]!));
      expect(second.items.map((t) => t.id)).toEqual(['full-3', 'full-2', 'full-1', 'full-0']);
      expect(second.hasMore).toBe(false);
      expect(await page(ALL, 4, positionOf(second.items[3]!))).toEqual({ items: [], hasMore: false });
      expect(await store().tokens.searchAfter(T1, ALL, { size: 5 }, NOW)).toMatchObject({ hasMore: true });
    });

    it('returns tokens as the store keeps them', async () => {
      const kept = token('kept-1', 5, { metadata: { a: 'B' }, containers: ['/pci/'], indexHashes: ['h1'], expiresAt: at(10_000_000_000) });
      await create(kept);
      const [found] = (await page(ALL, 10)).items;
      expect(found).toMatchObject({ id: 'kept-1', tenantId: T1, metadata: { a: 'B' }, containers: ['/pci/'], indexHashes: ['h1'], createdAt: kept.createdAt, expiresAt: kept.expiresAt });
      expect([...found!.sealedData]).toEqual([...kept.sealedData]);
    });

    it('visits every token once while tokens are created between pages, at the front and among the ties', async () => {
      const before = Array.from({ length: 30 }, (_, i) => token(`old-${String(i).padStart(2, '0')}`, Math.floor(i / 6)));
      for (const t of before) await create(t);
      let made = 0;
      const seen = await walk(ALL, 4, async (n) => {
        // Newer than the walk, and in the same millisecond as tokens already seen and not yet seen.
        await create(token(`new-${n}-front`, 1_000 + n));
        for (const ms of [0, 2, 4]) await create(token(`old-${String(made++).padStart(3, '0')}-${ms}`, ms));
        await create(token(`old-99-${n}`, n % 5));
      });
      const counts = tally(seen);
      for (const t of before) expect([t.id, counts.get(t.id)]).toEqual([t.id, 1]);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      expect(seen.some((id) => id.startsWith('new-'))).toBe(false);
      // Whatever the walk saw, it saw in order.
      const all = (await store().tokens.search(T1, ALL, { page: 1, size: 200 }, NOW)).items.map((t) => t.id);
      expect(seen).toEqual(all.filter((id) => seen.includes(id)));
    });

    it('visits every token once while creates run concurrently with the page reads', async () => {
      const before = Array.from({ length: 24 }, (_, i) => token(`c-${String(i).padStart(2, '0')}`, Math.floor(i / 3)));
      for (const t of before) await create(t);
      const ids: string[] = [];
      let after: KeysetPosition | undefined;
      for (let n = 0; n < 100; n++) {
        const creating = Promise.all([
          store().tokens.create(token(`c-front-${n}`, 500 + n), { deduplicate: false, now: NOW }),
          store().tokens.create(token(`c-${String(n).padStart(2, '0')}-tie`, n % 8), { deduplicate: false, now: NOW }),
        ]);
        const [found] = await Promise.all([page(ALL, 5, after), creating]);
        ids.push(...found.items.map((t) => t.id));
        if (!found.hasMore) break;
        after = positionOf(found.items[found.items.length - 1]!);
      }
      const counts = tally(ids);
      for (const t of before) expect(counts.get(t.id)).toBe(1);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
    });

    it('visits ids beyond ASCII exactly once, in the order the store sorts them', async () => {
      const ids = ['tie-a', 'tie-é', 'tie-\uff01', 'tie-😀', 'tie-\u{10ffff}', 'tie-Z', 'tie- ', 'tie-中文'];
      for (const id of ids) await create(token(id, 7));
      const one = await walk(ALL, 1);
      expect([...one].sort()).toEqual([...ids].sort());
      expect(await walk(ALL, 3)).toEqual(one);
    });

    it('resumes after a position whose token was deleted or has expired since', async () => {
      for (let i = 0; i < 6; i++) await create(token(`gone-${i}`, i, i === 3 ? { expiresAt: at(60_000) } : {}));
      const before = at(30_000);
      const first = await page(ALL, 2, undefined, T1, before);
      expect(first.items.map((t) => t.id)).toEqual(['gone-5', 'gone-4']);
      expect(await store().tokens.delete(T1, 'gone-4')).toBe(true);
      const second = await page(ALL, 2, positionOf(first.items[1]!), T1, before);
      expect(second.items.map((t) => t.id)).toEqual(['gone-3', 'gone-2']);
      // Read again after gone-3 expired: its position still leads on.
      const third = await page(ALL, 2, positionOf(second.items[0]!), T1, at(60_000));
      expect(third.items.map((t) => t.id)).toEqual(['gone-2', 'gone-1']);
    });

    it('skips expired tokens on every page', async () => {
      for (let i = 0; i < 12; i++) await create(token(`exp-${String(i).padStart(2, '0')}`, i % 3, i % 4 === 0 ? { expiresAt: NOW } : {}));
      await create(token('exp-later', 1, { expiresAt: new Date(NOW.getTime() + 1) }));
      const seen = await walk(ALL, 2);
      expect(seen.sort()).toEqual(['exp-01', 'exp-02', 'exp-03', 'exp-05', 'exp-06', 'exp-07', 'exp-09', 'exp-10', 'exp-11', 'exp-later']);
    });

    it('pages the matches of combined filters only', async () => {
      for (let i = 0; i < 20; i++) {
        await create(
          token(`f-${String(i).padStart(2, '0')}`, i % 5, {
            type: i % 2 === 0 ? 'card_number' : 'token',
            containers: [i % 3 === 0 ? '/pci/high/' : '/pci/'],
            metadata: { plan: i % 4 === 0 ? 'Gold' : 'silver' },
            fingerprint: i < 10 ? 'fp-low' : 'fp-high',
          }),
        );
      }
      const query = parseTokenQuery('type:card_number AND container:/pci/* AND NOT metadata.plan:gold AND fingerprint:fp-low');
      const expected = (await store().tokens.search(T1, query, { page: 1, size: 100 }, NOW)).items.map((t) => t.id);
      expect(expected.sort()).toEqual(['f-02', 'f-06']);
      const scoped: TokenQuery = { kind: 'and', items: [{ kind: 'term', field: 'type', value: 'token' }, { kind: 'container', path: '/pci/', prefix: false }] };
      const all = (await store().tokens.search(T1, scoped, { page: 1, size: 100 }, NOW)).items.map((t) => t.id);
      expect(all).toHaveLength(7);
      expect(await walk(scoped, 2)).toEqual(all);
      expect(await walk(query, 1)).toEqual((await store().tokens.search(T1, query, { page: 1, size: 100 }, NOW)).items.map((t) => t.id));
    });

    it('agrees with search on every query form', async () => {
      for (const t of searchCorpus()) await create(t);
      for (const [text, ids] of SEARCH_CASES) {
        const seen: string[] = [];
        let after: KeysetPosition | undefined;
        for (;;) {
          const found = await store().tokens.searchAfter(SEARCH_TENANT, parseTokenQuery(text), { after, size: 2 }, SEARCH_NOW);
          seen.push(...found.items.map((t) => t.id));
          if (!found.hasMore) break;
          after = positionOf(found.items[found.items.length - 1]!);
        }
        expect([text, seen]).toEqual([text, ids]);
      }
      expect((await store().tokens.searchAfter(OTHER_SEARCH_TENANT, ALL, { size: 10 }, SEARCH_NOW)).items.map((t) => t.id)).toEqual(['x1']);
    });

    it("never shows another tenant's tokens, even from a position among them", async () => {
      for (let i = 0; i < 10; i++) {
        await create(token(`mine-${i}`, i % 2));
        await create(token(`theirs-${i}`, i % 2, {}, T2));
      }
      const seen = await walk(ALL, 3);
      expect(seen.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `mine-${i}`).sort());
      const theirs = await page(ALL, 100, { createdAt: at(1), id: 'theirs-9' });
      expect(theirs.items.every((t) => t.tenantId === T1)).toBe(true);
      expect(theirs.items.map((t) => t.id)).toEqual(['mine-9', 'mine-7', 'mine-5', 'mine-3', 'mine-1', 'mine-8', 'mine-6', 'mine-4', 'mine-2', 'mine-0']);
      expect((await walk(ALL, 4, undefined, T2)).every((id) => id.startsWith('theirs-'))).toBe(true);
      expect((await page(ALL, 10, undefined, '33333333-0000-4000-8000-0000000000a3')).items).toEqual([]);
    });
  });
}
