import fc from 'fast-check';
import { checkDestination } from './check-destination';
import type { HostLookup, HostResolver } from './host-resolver';
import { classifyAddress } from './ip-address';
import { OutboundPolicy } from './outbound-policy';

/** Resolves each name to the addresses given; any other name does not resolve. Records what it was asked. */
function resolverOf(names: Readonly<Record<string, readonly string[]>>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    resolve: async (hostname): Promise<HostLookup> => {
      asked.push(hostname);
      const addresses = names[hostname];
      return addresses === undefined ? { kind: 'unresolved' } : { kind: 'resolved', addresses };
    },
  };
}

const strict = new OutboundPolicy();

describe('checkDestination', () => {
  it('refuses a name that resolves to a loopback, private or metadata address, naming the range, not the address', async () => {
    const resolver = resolverOf({ vm: ['127.0.0.1'], 'db.corp.example': ['10.1.2.3'], 'imds.example': ['169.254.169.254'], 'mixed.example': ['93.184.216.34', '::1'] });
    for (const [host, range] of [['vm', 'loopback'], ['db.corp.example', 'private'], ['imds.example', 'metadata'], ['mixed.example', 'loopback']] as const) {
      const decision = await checkDestination(strict, resolver, `https://${host}/hook`);
      expect(decision).toEqual({ allowed: false, reason: expect.stringMatching(new RegExp(`^resolves to a[n]? ${range === 'metadata' ? 'cloud metadata' : range}`)) });
      expect(JSON.stringify(decision)).not.toMatch(/127\.0|10\.1|169\.254|::1/);
    }
  });

  it('accepts a name whose every address is public, and a name that does not resolve (delivery checks it again)', async () => {
    const resolver = resolverOf({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'] });
    expect(await checkDestination(strict, resolver, 'https://hooks.example.com/in')).toMatchObject({ allowed: true, value: { host: 'hooks.example.com' } });
    expect(await checkDestination(strict, resolver, 'https://not-yet.example.com/in')).toMatchObject({ allowed: true });
  });

  it('looks up nothing for a URL the policy refuses, an IP literal, or a host SVC_OUTBOUND_ALLOW lists', async () => {
    const resolver = resolverOf({ 'hooks.internal': ['10.0.0.7'] });
    const policy = OutboundPolicy.fromAllowList('hooks.internal');
    expect((await checkDestination(policy, resolver, 'https://hooks.internal/in')).allowed).toBe(true);
    expect((await checkDestination(policy, resolver, 'https://localhost/in')).allowed).toBe(false);
    expect((await checkDestination(policy, resolver, 'https://example.com:0/in')).allowed).toBe(false);
    expect((await checkDestination(policy, resolver, 'https://8.8.8.8/in')).allowed).toBe(true);
    expect(resolver.asked).toEqual([]);
  });

  it('refuses a name exactly when some address it resolves to is not public', async () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const address = fc.oneof(
      fc.tuple(octet, octet, octet, octet).map((p) => p.join('.')),
      fc.constantFrom('::1', 'fe80::1', 'fd00::5', '2001:db8::1', '2606:4700::1111', '::ffff:10.0.0.1', '64:ff9b::8.8.8.8'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(address, { minLength: 1, maxLength: 4 }), async (addresses) => {
        const decision = await checkDestination(strict, resolverOf({ 'h.example.com': addresses }), 'https://h.example.com/');
        return decision.allowed === addresses.every((a) => classifyAddress(a) === 'public');
      }),
      { seed: 3, numRuns: 300 },
    );
  });
});
