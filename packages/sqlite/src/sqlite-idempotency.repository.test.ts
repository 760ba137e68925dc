import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Actor, answerDigest, CryptoRandomSource, type IdempotencyClaimInput, IdempotentRequests, Keyring, SystemClock } from '@svc/core';
import { openSqliteStore } from './sqlite-store';

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-idempotency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date('2026-01-01T00:00:00.000Z');
const input = (claimId: string): IdempotencyClaimInput => ({
  tenantId: 't1',
  callerId: 'app-1',
  key: 'k',
  fingerprint: 'fp',
  claimId,
  claimedAt: NOW,
  expiresAt: new Date('2026-01-02T00:00:00.000Z'),
});

const actor: Actor = { tenantId: 't1', kind: 'application', applicationId: 'app-1', applicationType: 'private', permissions: [], rules: [], authorized: true };

/** A store in a file of `dir`, and the idempotency rules over it with a keyring of its own. */
function sealedRequests(name: string) {
  const store = openSqliteStore({ file: join(dir, name), writerThread: false });
  const random = new CryptoRandomSource();
  const clock = new SystemClock();
  const keyring = new Keyring({ dataKeys: store.dataKeys, random, clock, masterKey: Buffer.alloc(32, 5) });
  const requests = new IdempotentRequests({ idempotency: store.idempotency, keyring, clock, random, ttlMs: 86_400_000 });
  return { store, keyring, requests };
}

describe('idempotency keys in one SQLite file opened twice', () => {
  it('gives a key to exactly one claim across connections', async () => {
    const file = join(dir, 'shared.db');
    const a = openSqliteStore({ file, writerThread: false });
    const b = openSqliteStore({ file, writerThread: false });
    try {
      const stores = [a, b, a, b, b, a, a, b];
      const claims = await Promise.all(stores.map((s, i) => s.idempotency.claim(input(`c${i}`), NOW, new Date(0))));
      expect(claims.filter((c) => c.claimed)).toHaveLength(1);
      const holder = claims.findIndex((c) => c.claimed);
      expect(await stores[holder === 0 ? 1 : 0]!.idempotency.complete('t1', 'app-1', 'k', `c${holder}`, Uint8Array.from([1]), input('x').expiresAt)).toBe(true);
      expect((await a.idempotency.find('t1', 'app-1', 'k', NOW))?.state).toBe('done');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("keeps a read's answer as its digest only: the retry is told to run again, and the answer is nowhere in the file", async () => {
    const { store, keyring, requests } = sealedRequests('digest.db');
    const request = { method: 'POST', path: '/detokenize', body: '{"n":"{{ t }}"}' };
    const outcome = await requests.begin(actor, 'SVC-IDEMPOTENCY-KEY', 'read-1', request);
    if (outcome.kind !== 'run') throw new Error('expected a claim');
    const body = Buffer.from('{"n":"Answer-Secret-4242424242424242"}');
    expect(await requests.complete(outcome.claim, { status: 200, headers: [['content-type', 'application/json']], body }, 'digest')).toBe(true);
    expect(await requests.begin(actor, 'SVC-IDEMPOTENCY-KEY', 'read-1', request)).toEqual({ kind: 'rerun', status: 200, digest: answerDigest(body) });
    // Opened with the tenant's key, the kept answer holds no body either.
    const kept = await store.idempotency.find('t1', 'app-1', 'read-1', new Date());
    const opened = (await keyring.forTenant('t1')).openIdempotent('app-1\u0000read-1', kept!.sealedResponse!).toString('utf8');
    expect(opened).not.toContain('Answer-Secret');
    expect(JSON.parse(opened).b).toBe('');
    await store.close();
  });

  it('keeps answers sealed: neither the answer nor the request body is in the file in plaintext', async () => {
    const { store, requests } = sealedRequests('at-rest.db');
    const body = JSON.stringify({ type: 'card', data: { number: '4242424242424242', note: 'Request-Secret-XYZ' } });
    const outcome = await requests.begin(actor, 'SVC-IDEMPOTENCY-KEY', 'key-1', { method: 'POST', path: '/tokens', body });
    if (outcome.kind !== 'run') throw new Error('expected a claim');
    const answer = { status: 201, headers: [['content-type', 'application/json; charset=utf-8']] as const, body: Buffer.from('{"number":"4242424242424242","note":"Answer-Secret-XYZ"}') };
    expect(await requests.complete(outcome.claim, answer)).toBe(true);
    const replay = await requests.begin(actor, 'SVC-IDEMPOTENCY-KEY', 'key-1', { method: 'POST', path: '/tokens', body });
    expect(replay).toEqual({ kind: 'replay', answer: { ...answer, headers: [...answer.headers.map((h) => [...h])] } });
    await store.close();
    const bytes = readdirSync(dir)
      .filter((f) => f.startsWith('at-rest.db'))
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('');
    for (const secret of ['4242424242424242', 'Request-Secret-XYZ', 'Answer-Secret-XYZ', 'application/json']) expect(bytes).not.toContain(secret);
  });
});
