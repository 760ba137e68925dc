import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Actor, CreateToken, CryptoRandomSource, ExpressionEngine, Keyring, SystemClock, UpdateToken, UuidGenerator } from '@svc/core';
import { openSqliteStore } from './sqlite-store';

const SECRETS = ['4242424242424242', '123-45-6789', '123456789', 'My-Secret-Value-XYZ', 'my-secret-value-xyz', '021000021', 'cvc":"9876'];

describe('the SQLite file at rest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-at-rest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds no token data, card number, SSN or search-index input in plaintext', async () => {
    const file = join(dir, 'svc.db');
    const store = openSqliteStore({ file });
    const random = new CryptoRandomSource();
    const clock = new SystemClock();
    const deps = {
      tokens: store.tokens,
      keyring: new Keyring({ dataKeys: store.dataKeys, random, clock, masterKey: Buffer.alloc(32, 3) }),
      expressions: new ExpressionEngine({ random }),
      clock,
      ids: new UuidGenerator(),
      policy: { cvcRetentionMs: 3_600_000 },
    };
    const actor: Actor = {
      tenantId: 'tenant-1',
      kind: 'application',
      applicationId: 'app-1',
      applicationType: 'private',
      permissions: ['token:create', 'token:read', 'token:update', 'token:use'],
      rules: [],
      authorized: true,
    };
    const create = new CreateToken(deps);
    await create.execute(actor, { type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '9876' } });
    await create.execute(actor, { type: 'social_security_number', data: '123-45-6789', metadata: { plan: 'gold' } });
    await create.execute(actor, { type: 'bank', data: { routing_number: '021000021', account_number: '4242424242424242' } });
    const token = await create.execute(actor, { type: 'token', data: { note: 'My-Secret-Value-XYZ' }, searchIndexes: ['{{ data.note }}'] });
    await new UpdateToken(deps).execute(actor, token.token.id, { data: { other: 'My-Secret-Value-XYZ' }, searchIndexes: ['{{ data.other }}'] });

    const files = [file, `${file}-wal`].filter(existsSync);
    const before = files.map((f) => readFileSync(f).toString('latin1')).join('');
    await store.close();
    const after = readFileSync(file).toString('latin1');
    for (const content of [before, after]) {
      for (const secret of SECRETS) expect(content.includes(secret)).toBe(false);
    }
    // Metadata is non-sensitive by definition and stays searchable.
    expect(after.includes('gold')).toBe(true);
  });
});
