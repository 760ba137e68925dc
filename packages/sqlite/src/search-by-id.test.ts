import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenQuery } from '@svc/core';
import { aStoredToken } from '@svc/core/testing';
import { openSqliteStore } from './sqlite-store';
import { boundedByIds } from './token-query-sql';

const dir = mkdtempSync(join(tmpdir(), 'svc-search-by-id-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const id = (value: string): TokenQuery => ({ kind: 'term', field: 'id', value });
const type = (value: string): TokenQuery => ({ kind: 'term', field: 'type', value });

describe('searches bounded by ids', () => {
  it('are an id, an OR of at most 100 ids, or an AND holding one of those; nothing else', () => {
    expect(boundedByIds(id('a'))).toBe(true);
    expect(boundedByIds({ kind: 'or', items: [id('a'), id('b')] })).toBe(true);
    expect(boundedByIds({ kind: 'and', items: [type('x'), { kind: 'or', items: [id('a'), id('b')] }] })).toBe(true);
    expect(boundedByIds({ kind: 'or', items: Array.from({ length: 101 }, (_, i) => id(`t${i}`)) })).toBe(false);
    expect(boundedByIds({ kind: 'or', items: [id('a'), type('x')] })).toBe(false);
    expect(boundedByIds({ kind: 'not', item: id('a') })).toBe(false);
    expect(boundedByIds({ kind: 'id_prefix', value: 'a' })).toBe(false);
    expect(boundedByIds(type('x'))).toBe(false);
    expect(boundedByIds({ kind: 'all' })).toBe(false);
  });

  it('run on the caller’s connection, other searches on a reader thread, with the same answers', async () => {
    const store = openSqliteStore({ file: join(dir, 'store.db'), searchReaders: 1 });
    try {
      const NOW = new Date('2026-01-01T00:00:00.000Z');
      for (const [tenant, tokenId] of [['t1', 'tok-a'], ['t1', 'tok-b'], ['t2', 'tok-c']] as const) {
        await store.tokens.create(aStoredToken().inTenant(tenant).with({ id: tokenId, type: 'token' }).build(), { deduplicate: false, now: NOW });
      }
      const readers = (store as unknown as { readers: { search: (...args: unknown[]) => unknown; searchAfter: (...args: unknown[]) => unknown } }).readers;
      const posted = jest.spyOn(readers, 'search');
      const postedAfter = jest.spyOn(readers, 'searchAfter');
      const page = { page: 1, size: 10 };
      const found = await store.tokens.search('t1', { kind: 'or', items: [id('tok-a'), id('tok-c')] }, page, NOW);
      expect([found.total, found.items.map((t) => t.id)]).toEqual([1, ['tok-a']]);
      expect((await store.tokens.searchAfter('t1', id('tok-b'), { size: 10 }, NOW)).items.map((t) => t.id)).toEqual(['tok-b']);
      expect((await store.tokens.search('t2', id('tok-a'), page, NOW)).total).toBe(0);
      expect(posted).not.toHaveBeenCalled();
      expect(postedAfter).not.toHaveBeenCalled();
      expect((await store.tokens.search('t1', type('token'), page, NOW)).total).toBe(2);
      expect(posted).toHaveBeenCalledTimes(1);
    } finally {
      await store.close();
    }
  });

  it('one id alone (its own seek) answers as the general plan does: live, expired and not swept, another tenant’s, absent, any page', async () => {
    const store = openSqliteStore({ file: join(dir, 'one-id.db'), searchReaders: 0 });
    try {
      const NOW = new Date('2026-01-01T00:00:00.000Z');
      const tokens = [
        aStoredToken().inTenant('t1').with({ id: 'live', type: 'token' }).build(),
        aStoredToken().inTenant('t1').with({ id: 'expired', type: 'token', expiresAt: new Date(NOW.getTime() - 1) }).build(),
        aStoredToken().inTenant('t1').with({ id: 'at-now', type: 'token', expiresAt: NOW }).build(),
        aStoredToken().inTenant('t1').with({ id: 'later', type: 'token', expiresAt: new Date(NOW.getTime() + 1) }).build(),
        aStoredToken().inTenant('t2').with({ id: 'theirs', type: 'token' }).build(),
      ];
      for (const token of tokens) await store.tokens.create(token, { deduplicate: false, now: new Date(NOW.getTime() - 10) });
      const answers: unknown[] = [];
      for (const tokenId of ['live', 'expired', 'at-now', 'later', 'theirs', 'absent', 'LIVE']) {
        for (const page of [{ page: 1, size: 10 }, { page: 1, size: 1 }, { page: 2, size: 1 }, { page: 3, size: 5 }]) {
          const alone = await store.tokens.search('t1', id(tokenId), page, NOW);
          // The same question in a shape the single-id seek does not take: the general plan answers it.
          const general = await store.tokens.search('t1', { kind: 'and', items: [id(tokenId), { kind: 'all' }] }, page, NOW);
          expect(alone).toEqual(general);
          answers.push([tokenId, page.page, page.size, alone.total, alone.items.map((t) => t.id)]);
        }
      }
      const found = (tokenId: string, total: number): unknown[] => [
        [tokenId, 1, 10, total, total ? [tokenId] : []],
        [tokenId, 1, 1, total, total ? [tokenId] : []],
        [tokenId, 2, 1, total, []],
        [tokenId, 3, 5, total, []],
      ];
      expect(answers).toEqual([
        ...found('live', 1),
        ...found('expired', 0),
        ...found('at-now', 0),
        ...found('later', 1),
        ...found('theirs', 0),
        ...found('absent', 0),
        ...found('LIVE', 0),
      ]);
      const live = await store.tokens.search('t1', id('live'), { page: 1, size: 10 }, NOW);
      expect(live.items).toEqual([await store.tokens.findById('t1', 'live', NOW)]);
    } finally {
      await store.close();
    }
  });
});
