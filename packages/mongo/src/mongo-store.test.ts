import { randomBytes } from 'node:crypto';
import { Binary, MongoClient } from 'mongodb';
import { aStoredToken, describeStoreContract } from '@svc/core/testing';
import { hashKey } from '@svc/core';
import { databaseNameOf, type MongoStore, openMongoStore } from './mongo-store';

const uri = process.env.MONGODB_URI;

describe('databaseNameOf', () => {
  it.each([
    ['mongodb://localhost:27017/vault', 'vault'],
    ['mongodb://u:p%2Fw@h1:27017,h2:27017/vault?replicaSet=rs0', 'vault'],
    ['mongodb+srv://cluster.example.net/my%20db?retryWrites=true', 'my db'],
    ['mongodb://localhost:27017/', undefined],
    ['mongodb://localhost:27017', undefined],
    ['mongodb://localhost/?w=majority', undefined],
  ])('reads %s', (given, expected) => {
    expect(databaseNameOf(given)).toBe(expected);
  });
});

if (!uri) {
  console.log('MONGODB_URI is not set: the MongoDB contract suite is skipped (set it, e.g. mongodb://localhost:27017, to run it).');
}

/** Runs only against a real server; with no MONGODB_URI every test in it is reported as skipped. */
const describeWithServer = uri ? describe : describe.skip;

describeWithServer('MongoDB store against a server', () => {
  jest.setTimeout(60_000);
  const databases: string[] = [];

  /** A store on a database of its own; every database made here is dropped when the file is done. */
  const open = (dbName = `svc_test_${randomBytes(8).toString('hex')}`, ttlIndexes = false): Promise<MongoStore> => {
    if (!databases.includes(dbName)) databases.push(dbName);
    return openMongoStore({ uri: uri!, dbName, ttlIndexes });
  };

  afterAll(async () => {
    const client = new MongoClient(uri!);
    try {
      for (const name of databases) await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });

  // The contract's fixed dates lie in the past: without TTL indexes the server's TTL monitor cannot race the tests.
  describeStoreContract('mongo', () => open());

  describe('on one database shared by several processes', () => {
    const NOW = new Date('2026-01-01T12:00:00.000Z');
    let dbName: string;
    let first: MongoStore;
    let second: MongoStore;

    beforeEach(async () => {
      dbName = `svc_test_${randomBytes(8).toString('hex')}`;
      first = await open(dbName);
      second = await open(dbName);
    });

    afterEach(async () => {
      await first.close();
      await second.close();
    });

    it('creates its indexes on every start without failing on existing ones', async () => {
      const names = (await first.db.collection('tokens').listIndexes().toArray()).map((i) => String(i.name));
      expect(names).toEqual(expect.arrayContaining(['tokens_by_id', 'tokens_dedup_claim', 'tokens_by_metadata', 'tokens_by_expiry']));
      const third = await open(dbName);
      await third.close();
    });

    it('bootstraps once: one claim of a flag wins across processes', async () => {
      const claims = await Promise.all([first, second, first, second].map((store) => store.system.claimOnce('bootstrap')));
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('creates one token from deduplicated creates racing in two processes', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? first : second).tokens.create(aStoredToken().inTenant('t1').with({ fingerprint: 'race' }).build(), { deduplicate: true, now: NOW }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'created')).toHaveLength(1);
      expect(await first.db.collection('tokens').countDocuments({ tenant_id: 't1', fingerprint: 'race' })).toBe(1);
    });

    it('keeps one data key per tenant when two processes store one at once', async () => {
      const keys = await Promise.all(
        [first, second].map((store, i) => store.dataKeys.createIfAbsent({ tenantId: 't1', wrapped: Uint8Array.from([i + 1]), createdAt: NOW })),
      );
      expect([...keys[0]!.wrapped]).toEqual([...keys[1]!.wrapped]);
    });

    it('authorizes a session once when two processes grant it at once', async () => {
      await first.sessions.create({
        id: 's1',
        tenantId: 't1',
        applicationId: 'a1',
        keyHash: 'k'.repeat(64),
        nonceHash: 'n'.repeat(64),
        createdAt: NOW,
        expiresAt: new Date(NOW.getTime() + 180_000),
        permissions: [],
        rules: [],
      });
      const grant = { permissions: ['token:read' as const], rules: [], expiresAt: new Date(NOW.getTime() + 3_600_000), authorizedAt: NOW };
      const results = await Promise.all([first, second].map((store) => store.sessions.authorize('t1', 's1', grant)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('application documents from before several keys per application', () => {
    it('get their one key moved into keys on open, so the key keeps working, once however many processes start', async () => {
      const dbName = `svc_test_${randomBytes(8).toString('hex')}`;
      databases.push(dbName);
      const client = new MongoClient(uri!);
      try {
        const applications = client.db(dbName).collection('applications');
        await applications.createIndex({ key_hash: 1 }, { name: 'applications_by_key', unique: true });
        const created = new Date('2026-01-01T00:00:00.000Z');
        const legacy = (id: string, key: string) => ({
          _id: id, tenant_id: 't1', name: id, type: 'private', permissions: ['token:read'], rules: [], key_hash: hashKey(key), created_by: 'c1', created_at: created,
        });
        await applications.insertMany([legacy('a1', 'key_pvt_one'), legacy('a2', 'key_pvt_two')] as never[]);
        const [first, second] = await Promise.all([open(dbName), open(dbName)]);
        expect((await first!.applications.findByKeyHash(hashKey('key_pvt_one')))?.id).toBe('a1');
        expect((await second!.applications.findByKeyHash(hashKey('key_pvt_two')))?.id).toBe('a2');
        const keys = await first!.applications.listKeys('t1', 'a1');
        expect(keys).toEqual([{ id: expect.any(String), tenantId: 't1', applicationId: 'a1', keyHash: hashKey('key_pvt_one'), createdBy: 'c1', createdAt: created }]);
        expect(await applications.countDocuments({ key_hash: { $exists: true } })).toBe(0);
        expect((await applications.indexes()).map((i) => i.name)).not.toContain('applications_by_key');
        await Promise.all([first!.close(), second!.close()]);
      } finally {
        await client.close();
      }
    });
  });

  describe('deduplication claims', () => {
    const NOW = new Date('2026-01-01T12:00:00.000Z');
    let store: MongoStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    const claimOf = async (tenantId: string, id: string): Promise<unknown> =>
      (await store.db.collection('tokens').findOne({ tenant_id: tenantId, id }))?.dedup_claim;

    it('releases the claim of an expired token, so a new deduplicated create succeeds', async () => {
      const expiring = aStoredToken().inTenant('t1').with({ fingerprint: 'fp', expiresAt: NOW }).build();
      await store.tokens.create(expiring, { deduplicate: true, now: new Date('2026-01-01T00:00:00.000Z') });
      const fresh = aStoredToken().inTenant('t1').with({ fingerprint: 'fp' }).build();
      expect(await store.tokens.create(fresh, { deduplicate: true, now: NOW })).toEqual({ status: 'created' });
      expect(await claimOf('t1', fresh.id)).toBe(true);
      expect(await claimOf('t1', expiring.id)).toBeUndefined();
    });

    it('keeps the claim through updates that keep the fingerprint, and releases it when the fingerprint changes', async () => {
      const token = aStoredToken().inTenant('t1').with({ fingerprint: 'fp1' }).build();
      await store.tokens.create(token, { deduplicate: true, now: NOW });
      expect(await store.tokens.update({ ...token, metadata: { k: 'v' } }, NOW)).toEqual({ status: 'updated' });
      expect(await claimOf('t1', token.id)).toBe(true);
      expect(await store.tokens.update({ ...token, version: 1, fingerprint: 'fp2' }, NOW)).toEqual({ status: 'updated' });
      expect(await claimOf('t1', token.id)).toBeUndefined();
      const again = await store.tokens.create(aStoredToken().inTenant('t1').with({ fingerprint: 'fp1' }).build(), { deduplicate: true, now: NOW });
      expect(again.status).toBe('created');
      const same = await store.tokens.create(aStoredToken().inTenant('t1').with({ fingerprint: 'fp2' }).build(), { deduplicate: true, now: NOW });
      expect(same.status === 'existing' && same.token.id).toBe(token.id);
    });

    it('stores sealed data as binary and never a plaintext field', async () => {
      const token = aStoredToken().inTenant('t1').with({ sealedData: Uint8Array.from([1, 2, 3]) }).build();
      await store.tokens.create(token, { deduplicate: false, now: NOW });
      const raw = await store.db.collection('tokens').findOne({ tenant_id: 't1', id: token.id });
      expect(raw?.sealed_data).toBeInstanceOf(Binary);
      expect(raw).not.toHaveProperty('data');
    });
  });
});
