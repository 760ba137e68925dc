import { parseTokenQuery } from '../../src/search/parse-query';
import type { TokenQuery } from '../../src/search/token-query';
import type { Store } from '../../src/shared/store';
import type { StoredToken } from '../../src/tokens/token';
import { aStoredToken } from '../builders';
import { useStore } from './use-store';

export const SEARCH_TENANT = '11111111-0000-4000-8000-000000000001';
export const OTHER_SEARCH_TENANT = '22222222-0000-4000-8000-000000000002';
/** The instant the search contract searches at. */
export const SEARCH_NOW = new Date('2026-06-01T00:00:00.000Z');
const T1 = SEARCH_TENANT;
const T2 = OTHER_SEARCH_TENANT;
const NOW = SEARCH_NOW;
const day = (d: number, h = 0): Date => new Date(Date.UTC(2026, 0, d, h));

/**
 * The search contract's corpus: two tenants, tokens created on consecutive days of January 2026 (t1 oldest).
 * Exported so that store-specific tests (e.g. a filter compiler checked without a server) use the same data.
 */
export function searchCorpus(): StoredToken[] {
  const t = (id: string, d: number, patch: Partial<StoredToken>): StoredToken =>
    aStoredToken().inTenant(T1).with({ id, createdAt: day(d), ...patch }).build();
  return [
    t('t1', 1, { type: 'card_number', containers: ['/pci/high/'], fingerprint: 'fpA', metadata: { Customer: 'ABC 123' } }),
    t('t2', 2, { type: 'card_number', containers: ['/pci/'], fingerprint: 'fpA', metadata: { customer: 'abc 123', plan: 'Gold' } }),
    t('t3', 3, { type: 'social_security_number', containers: ['/pii/high/'], indexHashes: ['h-ssn', 'h-last4'] }),
    t('t4', 4, { type: 'social_security_number', containers: ['/pii/high/'], indexHashes: ['h-other', 'h-last4'], createdBy: 'app-2' }),
    t('t5', 5, { type: 'token', containers: ['/pci/low/'], modifiedAt: day(10), modifiedBy: 'app-3', metadata: { plan: 'silver' } }),
    t('t6', 6, { type: 'token', containers: ['/pcix/'], expiresAt: day(1) }),
    t('s1', 7, { type: 'token', containers: ['/general/high/'] }),
    aStoredToken().inTenant(T2).with({ id: 'x1', createdAt: day(8), type: 'card_number', containers: ['/pci/high/'], fingerprint: 'fpA', indexHashes: ['h-ssn'], metadata: { customer: 'abc 123' } }).build(),
  ];
}

/** Query text and the ids it selects in {@link searchCorpus}, newest first: every store must agree. */
export const SEARCH_CASES: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['id:t3', ['t3']],
    ['type:card_number', ['t2', 't1']],
    ['fingerprint:fpA', ['t2', 't1']],
    ['created_by:app-2', ['t4']],
    ['modified_by:app-3', ['t5']],
    ['metadata.customer:"ABC 123"', ['t2', 't1']],
    ['metadata.plan:gold', ['t2']],
    ['metadata.plan:GOLD', ['t2']],
    ['metadata.customer:abc', []],
    ['container:/pci/high/', ['t1']],
    ['container:"/pci/"', ['t2']],
    ['container:/pci/*', ['t5', 't2', 't1']],
    ['container:/pii/high/*', ['t4', 't3']],
    ['created_at:[2026-01-02 TO 2026-01-04]', ['t4', 't3', 't2']],
    ['created_at:{2026-01-02T00:00:00Z TO 2026-01-04T00:00:00Z}', ['t3']],
    ['created_at:[2026-01-05T00:00:00Z TO *]', ['s1', 't5']],
    ['created_at:[* TO 2026-01-01T00:00:00Z]', ['t1']],
    ['created_at:2026-01-03', ['t3']],
    ['modified_at:[2026-01-01 TO *]', ['t5']],
    ['type:card_number AND container:/pci/high/', ['t1']],
    ['type:card_number OR type:token', ['s1', 't5', 't2', 't1']],
    ['NOT type:card_number', ['s1', 't5', 't4', 't3']],
    ['NOT modified_by:app-3', ['s1', 't4', 't3', 't2', 't1']],
    ['NOT modified_at:[2026-01-01 TO *]', ['s1', 't4', 't3', 't2', 't1']],
    ['!type:card_number AND !type:token', ['t4', 't3']],
    ['-container:/pci/* -container:/pii/*', ['s1']],
    ['(type:token OR type:card_number) AND NOT container:/pci/*', ['s1']],
    ['type:card_number metadata.plan:gold', ['t2']],
];

/** The search port: every query form, ordering, totals and tenant isolation, the same on every store. */
export function describeSearchContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('search contract', () => {
    const store = useStore(open);
    const ids = async (query: TokenQuery | string, page = { page: 1, size: 50 }, tenant = T1): Promise<string[]> => {
      const q = typeof query === 'string' ? parseTokenQuery(query) : query;
      return (await store().tokens.search(tenant, q, page, NOW)).items.map((t) => t.id);
    };

    describe('token search', () => {
      beforeEach(async () => {
        for (const token of searchCorpus()) await store().tokens.create(token, { deduplicate: false, now: day(1) });
      });

      it('returns every live token of the tenant, newest first, for an empty query', async () => {
        expect(await ids({ kind: 'all' })).toEqual(['s1', 't5', 't4', 't3', 't2', 't1']);
      });

      it('pages with a total that counts every match', async () => {
        const page = await store().tokens.search(T1, { kind: 'all' }, { page: 2, size: 4 }, NOW);
        expect(page.total).toBe(6);
        expect(page.items.map((t) => t.id)).toEqual(['t2', 't1']);
        const beyond = await store().tokens.search(T1, { kind: 'all' }, { page: 3, size: 4 }, NOW);
        expect(beyond).toMatchObject({ total: 6, items: [] });
      });

      it.each(SEARCH_CASES)('answers %s', async (query, expected) => {
        expect(await ids(query)).toEqual(expected);
        expect((await store().tokens.search(T1, parseTokenQuery(query), { page: 1, size: 50 }, NOW)).total).toBe(expected.length);
      });

      it('matches blinded data terms against index hashes, many tokens for a shared index', async () => {
        expect(await ids({ kind: 'data', value: 'h-ssn' })).toEqual(['t3']);
        expect(await ids({ kind: 'data', value: 'h-last4' })).toEqual(['t4', 't3']);
        expect(await ids({ kind: 'data', value: 'h-none' })).toEqual([]);
      });

      it('matches id prefixes (session scopes)', async () => {
        expect(await ids({ kind: 'id_prefix', value: 't' })).toEqual(['t5', 't4', 't3', 't2', 't1']);
        expect(await ids({ kind: 'id_prefix', value: 's' })).toEqual(['s1']);
      });

      it('never returns expired tokens, nor another tenant\'s', async () => {
        expect(await ids('container:/pcix/')).toEqual([]);
        expect(await ids({ kind: 'data', value: 'h-ssn' }, { page: 1, size: 50 }, T2)).toEqual(['x1']);
        expect(await ids('fingerprint:fpA', { page: 1, size: 50 }, T2)).toEqual(['x1']);
        expect(await ids({ kind: 'all' }, { page: 1, size: 50 }, '33333333-0000-4000-8000-000000000003')).toEqual([]);
      });

      it('orders tokens created in the same instant by id, descending', async () => {
        const same = new Date('2026-02-01T00:00:00.000Z');
        for (const id of ['q-a', 'q-c', 'q-b']) {
          await store().tokens.create(aStoredToken().inTenant(T1).with({ id, createdAt: same, containers: ['/same/'] }).build(), { deduplicate: false, now: day(1) });
        }
        expect(await ids('container:/same/')).toEqual(['q-c', 'q-b', 'q-a']);
      });

      it('follows updates of metadata and index hashes', async () => {
        const t3 = (await store().tokens.findById(T1, 't3', NOW))!;
        expect(await store().tokens.update({ ...t3, metadata: { Plan: 'Gold' }, indexHashes: ['h-new'] }, NOW)).toEqual({ status: 'updated' });
        expect(await ids('metadata.plan:gold')).toEqual(['t3', 't2']);
        expect(await ids({ kind: 'data', value: 'h-ssn' })).toEqual([]);
        expect(await ids({ kind: 'data', value: 'h-new' })).toEqual(['t3']);
      });
    });
  });
}
