import fc from 'fast-check';
import { classifyAddress, parseIpAddress } from './ip-address';

/** The hostname `new URL()` leaves for a host as written: what the policy actually sees. */
const hostOf = (host: string) => new URL(`https://${host}/`).hostname;

const octet = fc.integer({ min: 0, max: 255 });
const v4 = (a: fc.Arbitrary<number>, b: fc.Arbitrary<number>, c: fc.Arbitrary<number>, d: fc.Arbitrary<number>) =>
  fc.tuple(a, b, c, d).map((parts) => parts.join('.'));
const hex = (n: number) => n.toString(16);

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.0.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link_local'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['172.15.255.255', 'public'],
    ['100.128.0.1', 'public'],
    ['169.255.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2002:808:808::', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each(['example.com', 'localhost', '1.2.3', '1.2.3.4.5', '256.0.0.1', '01.2.3.4', ':::1', '1::2::3', '12345::', '1:2:3:4:5:6:7:8:9', '::1.2.3.4:5', ''])(
    '%j is not an IP literal',
    (text) => {
      expect(classifyAddress(text)).toBeUndefined();
    },
  );

  describe('odd spellings, as new URL() normalizes them', () => {
    it.each([
      ['0x7f.1', '127.0.0.1'],
      ['2130706433', '127.0.0.1'],
      ['0177.0.0.1', '127.0.0.1'],
      ['127.1', '127.0.0.1'],
      ['0x7f000001', '127.0.0.1'],
      ['0', '0.0.0.0'],
      ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
      ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]'],
      ['[0:0:0:0:0:0:0:1]', '[::1]'],
      ['[::FFFF:A9FE:A9FE]', '[::ffff:a9fe:a9fe]'],
      ['LOCALHOST', 'localhost'],
    ])('%s becomes %s, which is refused', (written, hostname) => {
      expect(hostOf(written)).toBe(hostname);
      if (hostname !== 'localhost') expect(classifyAddress(hostname)).not.toBe('public');
    });
  });

  it('refuses every IPv4 address in the loopback, private, link-local and CGNAT ranges', () => {
    const refused = fc.oneof(
      v4(fc.constant(127), octet, octet, octet),
      v4(fc.constant(10), octet, octet, octet),
      v4(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
      v4(fc.constant(192), fc.constant(168), octet, octet),
      v4(fc.constant(169), fc.constant(254), octet, octet),
      v4(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
      v4(fc.integer({ min: 224, max: 255 }), octet, octet, octet),
      v4(fc.constant(0), octet, octet, octet),
    );
    fc.assert(fc.property(refused, (address) => classifyAddress(address) !== 'public'));
  });

  it('judges an IPv4-mapped IPv6 address, in any spelling URL parsing leaves, as its IPv4 address', () => {
    const address = v4(octet, octet, octet, octet);
    fc.assert(
      fc.property(address, fc.constantFrom('::ffff:', '0:0:0:0:0:ffff:', '::ffff:0:', '64:ff9b::'), (ip, prefix) => {
        const expected = classifyAddress(ip);
        const bytes = parseIpAddress(ip)!;
        const hexForm = `${prefix.replace(/:$/, '')}:${hex((bytes[0]! << 8) | bytes[1]!)}:${hex((bytes[2]! << 8) | bytes[3]!)}`;
        return (
          classifyAddress(`${prefix}${ip}`) === expected &&
          classifyAddress(hexForm.replace(':::', '::')) === expected &&
          classifyAddress(hostOf(`[${prefix}${ip}]`)) === expected
        );
      }),
    );
  });

  it('parses any IPv6 address from its full form and from the compressed form URL parsing gives', () => {
    const groups = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(groups, (gs) => {
        const full = gs.map(hex).join(':');
        const expected = Uint8Array.from(gs.flatMap((g) => [g >> 8, g & 0xff]));
        const compressed = hostOf(`[${full}]`);
        return (
          Buffer.from(parseIpAddress(full)!).equals(expected) && Buffer.from(parseIpAddress(compressed)!).equals(expected)
        );
      }),
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string(), (text) => {
      classifyAddress(text);
    }));
  });
});
