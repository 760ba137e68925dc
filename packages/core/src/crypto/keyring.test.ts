import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import { FixedClock } from '../../testing/fixed-clock';
import { CryptoRandomSource } from '../shared/random';
import { DataKeyNotFoundError, Keyring, MasterKeyMismatchError } from './keyring';

const master = Buffer.alloc(32, 7);

describe('Keyring', () => {
  const make = (masterKey: Uint8Array = master, dataKeys = createMemoryStoreForCore()) =>
    ({ keyring: new Keyring({ dataKeys, random: new CryptoRandomSource(), clock: new FixedClock(), masterKey }), dataKeys });

  it('seals data that only the same tenant and token id can open', async () => {
    const { keyring } = make();
    const a = await keyring.forTenant('tenant-a');
    const b = await keyring.forTenant('tenant-b');
    const sealed = a.seal('tok-1', { number: '4242424242424242' });
    expect(Buffer.from(sealed).toString('latin1')).not.toContain('4242');
    expect(a.open('tok-1', sealed)).toEqual({ number: '4242424242424242' });
    expect(() => a.open('tok-2', sealed)).toThrow();
    expect(() => b.open('tok-1', sealed)).toThrow();
  });

  it('stores each data key wrapped, and reuses it after a restart', async () => {
    const { keyring, dataKeys } = make();
    const sealed = (await keyring.forTenant('t')).seal('id', 'secret');
    const stored = await dataKeys.find('t');
    expect(stored?.wrapped.length).toBe(1 + 12 + 16 + 32);
    const restarted = make(master, dataKeys).keyring;
    expect((await restarted.forTenant('t')).open('id', sealed)).toBe('secret');
    const wrongMaster = make(Buffer.alloc(32, 8), dataKeys).keyring;
    await expect(wrongMaster.forTenant('t')).rejects.toThrow(new MasterKeyMismatchError('t'));
  });

  it('opens every stored data key at once, and names the tenant whose key another master key does not open', async () => {
    const { keyring, dataKeys } = make();
    expect(await keyring.openAll()).toBe(0);
    for (const tenant of ['a', 'b']) await keyring.forTenant(tenant);
    expect(await make(master, dataKeys).keyring.openAll()).toBe(2);
    const wrong = make(Buffer.alloc(32, 8), dataKeys).keyring;
    await expect(wrong.openAll()).rejects.toThrow(MasterKeyMismatchError);
    await expect(wrong.openAll()).rejects.toMatchObject({ tenantId: 'a', message: 'the master key does not open the data key of tenant a' });
  });

  it('makes no data key when it may only read', async () => {
    const dataKeys = createMemoryStoreForCore();
    const reader = new Keyring({ dataKeys, random: new CryptoRandomSource(), clock: new FixedClock(), masterKey: master, createMissing: false });
    await expect(reader.forTenant('t')).rejects.toThrow(DataKeyNotFoundError);
    expect(await dataKeys.all()).toEqual([]);
    await make(master, dataKeys).keyring.forTenant('t');
    await expect(reader.forTenant('t')).resolves.toBeDefined();
  });

  it('gives keyed fingerprints per tenant and type, and case-insensitive index hashes', async () => {
    const { keyring } = make();
    const a = await keyring.forTenant('a');
    const b = await keyring.forTenant('b');
    expect(a.fingerprint('card_number', '4242')).toBe(a.fingerprint('card_number', '4242'));
    expect(a.fingerprint('card_number', '4242')).not.toBe(a.fingerprint('token', '4242'));
    expect(a.fingerprint('card_number', '4242')).not.toBe(b.fingerprint('card_number', '4242'));
    expect(a.indexHash('ABC')).toBe(a.indexHash('abc'));
    expect(a.indexHash('abc')).not.toBe(b.indexHash('abc'));
  });

  it('re-wraps data keys under a new master key without touching sealed data', async () => {
    const { keyring, dataKeys } = make();
    const sealed = (await keyring.forTenant('t')).seal('id', 'secret');
    const next = Buffer.alloc(32, 9);
    expect(await keyring.rewrap(next)).toBe(1);
    expect((await make(next, dataKeys).keyring.forTenant('t')).open('id', sealed)).toBe('secret');
  });

  it('reports its progress after each key it re-wraps', async () => {
    const { keyring } = make();
    for (const tenant of ['a', 'b', 'c']) await keyring.forTenant(tenant);
    const heard: Array<[number, number]> = [];
    expect(await keyring.rewrap(Buffer.alloc(32, 9), (done, total) => heard.push([done, total]))).toBe(3);
    expect(heard).toEqual([[0, 3], [1, 3], [2, 3], [3, 3]]);
  });
});
