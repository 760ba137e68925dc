import { Query } from 'mingo';
import { type KeysetPosition, parseTokenQuery, type TokenQuery } from '@svc/core';
import { aStoredToken, SEARCH_CASES, SEARCH_NOW, SEARCH_TENANT, searchCorpus } from '@svc/core/testing';
import { toTokenDocument, type TokenDocument } from './token-document';
import { tokenKeysetFilter } from './token-query-filter';

/**
 * What the keyset filter selects, evaluated by mingo (MongoDB's query language in JavaScript), sorted and cut as the
 * repository's `find().sort(TOKEN_ORDER).limit(size + 1)` does. Not a MongoDB test: the contract suite against a
 * server is; this checks without one that a walk sees every token once.
 */
const T1 = SEARCH_TENANT;
const order = (a: TokenDocument, b: TokenDocument): number => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

function walk(docs: readonly TokenDocument[], query: TokenQuery, size: number, now: Date): string[] {
  const seen: string[] = [];
  let after: KeysetPosition | undefined;
  for (let n = 0; n < 1_000; n++) {
    const matcher = new Query<TokenDocument>(tokenKeysetFilter(T1, query, after, now), {});
    const page = docs.filter((doc) => matcher.test(doc)).sort(order).slice(0, size + 1);
    const items = page.slice(0, size);
    seen.push(...items.map((doc) => doc.id));
    if (page.length <= size) return seen;
    const last = items[items.length - 1]!;
    after = { createdAt: last.created_at, id: last.id };
  }
  throw new Error('the walk did not end');
}

describe('the keyset filter (evaluated by mingo, not by MongoDB)', () => {
  it('walks ties of the same millisecond in id order, each token once', () => {
    const tokens = Array.from({ length: 23 }, (_, i) =>
      aStoredToken().inTenant(T1).with({ id: `k-${String((i * 5) % 23).padStart(2, '0')}`, createdAt: new Date(Date.UTC(2026, 0, 1) + (i % 3)) }).build(),
    );
    const docs = tokens.map((t) => toTokenDocument(t, { dedupClaim: false }));
    const expected = [...docs].sort(order).map((d) => d.id);
    for (const size of [1, 2, 5, 23]) expect(walk(docs, { kind: 'all' }, size, SEARCH_NOW)).toEqual(expected);
  });

  it.each(SEARCH_CASES)('pages %p as search selects it', (text, expected) => {
    const docs = searchCorpus().map((t) => toTokenDocument(t, { dedupClaim: false }));
    expect(walk(docs, parseTokenQuery(text), 2, SEARCH_NOW)).toEqual(expected);
  });

  it('keeps the expiry and the query when a position is given', () => {
    const filter = tokenKeysetFilter(T1, parseTokenQuery('type:token'), { createdAt: SEARCH_NOW, id: 'x' }, SEARCH_NOW);
    expect(filter.$or).toBeDefined();
    expect(filter.$and).toHaveLength(2);
  });
});
