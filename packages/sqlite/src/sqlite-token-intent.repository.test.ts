import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredTokenIntent } from '@svc/core';
import { openSqliteStore } from './sqlite-store';

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-intents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date('2026-01-01T01:00:00.000Z');
const intent: StoredTokenIntent = {
  id: 'i1',
  tenantId: 't1',
  type: 'card',
  sealedData: Uint8Array.from([9, 8, 7]),
  fingerprint: 'fp',
  createdBy: 'app',
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  expiresAt: new Date('2026-01-02T00:00:00.000Z'),
};

describe('token intents in one SQLite file opened twice', () => {
  it('gives an intent to exactly one take across connections, and a put back is seen by both', async () => {
    const file = join(dir, 'shared.db');
    const a = openSqliteStore({ file, writerThread: false });
    const b = openSqliteStore({ file, writerThread: false });
    try {
      await a.tokenIntents.create(intent);
      const takes = await Promise.all([a, b, a, b, b, a].map((s) => s.tokenIntents.take('t1', 'i1', NOW)));
      expect(takes.filter(Boolean)).toHaveLength(1);
      expect(await a.tokenIntents.findById('t1', 'i1', NOW)).toBeUndefined();
      await b.tokenIntents.create(takes.find(Boolean)!);
      expect((await a.tokenIntents.findById('t1', 'i1', NOW))?.fingerprint).toBe('fp');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
