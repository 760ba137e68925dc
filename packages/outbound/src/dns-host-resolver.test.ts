import { DnsHostResolver } from './dns-host-resolver';

describe('DnsHostResolver', () => {
  it('resolves a name from the hosts file, as the outbound client connects', async () => {
    const lookup = await new DnsHostResolver().resolve('localhost');
    expect(lookup.kind).toBe('resolved');
    if (lookup.kind === 'resolved') expect(lookup.addresses.every((a) => a === '::1' || a.startsWith('127.'))).toBe(true);
  });

  it('calls a name that does not exist unresolved', async () => {
    // .invalid never resolves (RFC 6761 §6.4); without a network the lookup fails or times out: unresolved too.
    expect(await new DnsHostResolver({ timeoutMs: 2_000 }).resolve('no-such-host.invalid')).toEqual({ kind: 'unresolved' });
  });

  it('calls a lookup that takes longer than the timeout unresolved, without waiting for it', async () => {
    const resolver = new DnsHostResolver({ timeoutMs: 50, lookup: () => new Promise<never>(() => undefined) });
    const started = Date.now();
    expect(await resolver.resolve('slow.example.com')).toEqual({ kind: 'unresolved' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('calls a failed or empty lookup unresolved', async () => {
    expect(await new DnsHostResolver({ lookup: () => Promise.reject(Object.assign(new Error('x'), { code: 'EAI_AGAIN' })) }).resolve('a.example')).toEqual({ kind: 'unresolved' });
    expect(await new DnsHostResolver({ lookup: async () => [] }).resolve('a.example')).toEqual({ kind: 'unresolved' });
  });

  it('gives every address the lookup found', async () => {
    const resolver = new DnsHostResolver({ lookup: async () => ['93.184.216.34', '::1'] });
    expect(await resolver.resolve('a.example')).toEqual({ kind: 'resolved', addresses: ['93.184.216.34', '::1'] });
  });
});
