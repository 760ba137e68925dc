import fc from 'fast-check';
import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import { FixedClock } from '../../testing/fixed-clock';
import { Keyring } from '../crypto/keyring';
import { ValidationError } from '../shared/errors';
import { CryptoRandomSource } from '../shared/random';
import { type CursorBinding, decodeTokenCursor, encodeTokenCursor } from './token-cursor';

const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random: new CryptoRandomSource(), clock: new FixedClock(), masterKey: Buffer.alloc(32, 3) });
const LIST: CursorBinding = { operation: 'list', query: '{"kind":"term","field":"type","value":"card"}' };
const position = { createdAt: new Date('2026-01-01T00:00:00.123Z'), id: 'tok-é😀 1' };

/** The field a decode refuses, or undefined when it decodes. */
function refusal(decode: () => unknown): string[] | undefined {
  try {
    decode();
    return undefined;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return Object.keys(error.errors);
  }
}

describe('token cursors', () => {
  it('decode to the position they were made from, in base64url', async () => {
    const keys = await keyring.forTenant('tenant-a');
    const cursor = encodeTokenCursor(keys, LIST, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeTokenCursor(keys, LIST, cursor)).toEqual(position);
    // Deterministic: the same page gives the same cursor.
    expect(encodeTokenCursor(keys, LIST, position)).toBe(cursor);
  });

  it("refuse another query, another operation and another tenant's cursor as a 400 on start", async () => {
    const a = await keyring.forTenant('tenant-a');
    const b = await keyring.forTenant('tenant-b');
    const cursor = encodeTokenCursor(a, LIST, position);
    expect(refusal(() => decodeTokenCursor(a, { ...LIST, query: '{"kind":"all"}' }, cursor))).toEqual(['start']);
    expect(refusal(() => decodeTokenCursor(a, { ...LIST, operation: 'search' }, cursor))).toEqual(['start']);
    expect(refusal(() => decodeTokenCursor(b, LIST, cursor))).toEqual(['start']);
  });

  it('refuse garbled text', async () => {
    const keys = await keyring.forTenant('tenant-a');
    const cursor = encodeTokenCursor(keys, LIST, position);
    for (const text of ['', 'x', '!!!', `${cursor}=`, `${cursor}A`, cursor.slice(1), 'A'.repeat(3000), Buffer.alloc(60).toString('base64url')]) {
      expect([text.slice(0, 20), refusal(() => decodeTokenCursor(keys, LIST, text))]).toEqual([text.slice(0, 20), ['start']]);
    }
  });

  it('refuse every change of a single character (seeded property)', async () => {
    const keys = await keyring.forTenant('tenant-a');
    const cursor = encodeTokenCursor(keys, LIST, position);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(fc.nat(cursor.length - 1), fc.constantFrom(...alphabet), (at, char) => {
        fc.pre(cursor[at] !== char);
        const altered = cursor.slice(0, at) + char + cursor.slice(at + 1);
        expect(refusal(() => decodeTokenCursor(keys, LIST, altered))).toEqual(['start']);
      }),
      { seed: 20261124, numRuns: 300 },
    );
  });
});
