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

  describe('the IANA special-purpose ranges', () => {
    /** `count` random bytes after `prefix`'s first `bits` bits; the rest of the address random too. */
    const withPrefix = (prefix: readonly number[], bits: number, length: 4 | 16) =>
      fc.uint8Array({ minLength: length, maxLength: length }).map((random) => {
        const bytes = Uint8Array.from(random);
        for (let bit = 0; bit < bits; bit++) {
          const byte = bit >> 3;
          const mask = 0x80 >> (bit & 7);
          bytes[byte] = ((prefix[byte] ?? 0) & mask) !== 0 ? bytes[byte]! | mask : bytes[byte]! & ~mask;
        }
        return bytes;
      });
    const text = (bytes: Uint8Array): string =>
      bytes.length === 4
        ? Array.from(bytes).join('.')
        : Array.from({ length: 8 }, (_, i) => hex((bytes[2 * i]! << 8) | bytes[2 * i + 1]!)).join(':');
    /** The address one below the range's first and one above its last: outside it. */
    const neighbours = (prefix: readonly number[], bits: number, length: 4 | 16): string[] => {
      const first = new Uint8Array(length);
      prefix.forEach((b, i) => (first[i] = b));
      const last = Uint8Array.from(first);
      for (let bit = bits; bit < length * 8; bit++) last[bit >> 3]! |= 0x80 >> (bit & 7);
      const step = (bytes: Uint8Array, by: 1 | -1) => {
        const out = Uint8Array.from(bytes);
        for (let i = length - 1; i >= 0; i--) {
          const v = out[i]! + by;
          out[i] = v & 0xff;
          if (v >= 0 && v <= 0xff) break;
        }
        return text(out);
      };
      return [step(first, -1), step(last, 1)];
    };

    // [range, prefix bytes, bits, the addresses just outside it are public]
    const V4: ReadonlyArray<readonly [string, readonly number[], number, boolean]> = [
      ['0.0.0.0/8', [0], 8, false],
      ['10.0.0.0/8', [10], 8, true],
      ['100.64.0.0/10', [100, 64], 10, true],
      ['127.0.0.0/8', [127], 8, true],
      ['169.254.0.0/16', [169, 254], 16, true],
      ['172.16.0.0/12', [172, 16], 12, true],
      ['192.0.0.0/24', [192, 0, 0], 24, true],
      ['192.0.2.0/24', [192, 0, 2], 24, true],
      ['192.88.99.0/24', [192, 88, 99], 24, true],
      ['192.168.0.0/16', [192, 168], 16, true],
      ['198.18.0.0/15', [198, 18], 15, true],
      ['198.51.100.0/24', [198, 51, 100], 24, true],
      ['203.0.113.0/24', [203, 0, 113], 24, true],
      ['224.0.0.0/4', [224], 4, false],
      ['240.0.0.0/4', [240], 4, false],
      ['255.255.255.255/32', [255, 255, 255, 255], 32, false],
    ];
    const V6: ReadonlyArray<readonly [string, readonly number[], number, boolean]> = [
      ['::1/128', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, false],
      ['100::/64', [1, 0, 0, 0, 0, 0, 0, 0], 64, false],
      ['100:0:0:1::/64', [1, 0, 0, 0, 0, 0, 0, 1], 64, false],
      ['2001::/23', [0x20, 0x01, 0x00], 23, true],
      ['2001::/32 (Teredo)', [0x20, 0x01, 0, 0], 32, false],
      ['2001:2::/48', [0x20, 0x01, 0, 2, 0, 0], 48, false],
      ['2001:db8::/32', [0x20, 0x01, 0x0d, 0xb8], 32, true],
      ['3fff::/20', [0x3f, 0xff], 20, true],
      ['5f00::/16', [0x5f, 0x00], 16, false],
      ['64:ff9b:1::/48', [0, 0x64, 0xff, 0x9b, 0, 1], 48, false],
      ['fc00::/7', [0xfc], 7, false],
      ['fe80::/10', [0xfe, 0x80], 10, false],
      ['fec0::/10', [0xfe, 0xc0], 10, false],
      ['ff00::/8', [0xff], 8, false],
    ];

    it.each(V4)('refuses every address of %s, and not its neighbours outside it', (_range, prefix, bits, neighboursPublic) => {
      fc.assert(fc.property(withPrefix(prefix, bits, 4), (bytes) => classifyAddress(text(bytes)) !== 'public'), { seed: 4, numRuns: 200 });
      if (neighboursPublic) for (const outside of neighbours(prefix, bits, 4)) expect([outside, classifyAddress(outside)]).toEqual([outside, 'public']);
    });

    it.each(V6)('refuses every address of %s, and not its neighbours outside it where they are global unicast', (_range, prefix, bits, neighboursPublic) => {
      fc.assert(fc.property(withPrefix(prefix, bits, 16), (bytes) => classifyAddress(text(bytes)) !== 'public'), { seed: 6, numRuns: 200 });
      if (neighboursPublic) for (const outside of neighbours(prefix, bits, 16)) expect([outside, classifyAddress(outside)]).toEqual([outside, 'public']);
    });

    it('refuses every IPv6 address outside global unicast (2000::/3) but the forms that carry an IPv4 address', () => {
      const outside = fc.uint8Array({ minLength: 16, maxLength: 16 }).filter((b) => (b[0]! & 0xe0) !== 0x20);
      fc.assert(
        fc.property(outside, (bytes) => {
          const carriesV4 = [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]].some(
            (p) => p.every((b, i) => bytes[i] === b),
          );
          fc.pre(!carriesV4);
          return classifyAddress(text(bytes)) !== 'public';
        }),
        { seed: 7, numRuns: 500 },
      );
    });

    it('judges a 6to4 address by the IPv4 address it carries, and a Teredo address as refused whatever it carries', () => {
      fc.assert(
        fc.property(octet, octet, octet, octet, fc.integer({ min: 0, max: 0xffff }), (a, b, c, d, subnet) => {
          const v4text = `${a}.${b}.${c}.${d}`;
          const sixToFour = `2002:${hex((a << 8) | b)}:${hex((c << 8) | d)}:${hex(subnet)}::1`;
          const teredo = `2001:0:${hex((a << 8) | b)}:${hex((c << 8) | d)}::${hex(subnet)}`;
          return classifyAddress(sixToFour) === classifyAddress(v4text) && classifyAddress(teredo) === 'reserved';
        }),
        { seed: 2002, numRuns: 300 },
      );
    });

    it.each([
      ['192.0.1.255', 'public'],
      ['192.0.3.0', 'public'],
      ['192.88.98.255', 'public'],
      ['192.88.100.0', 'public'],
      ['198.51.99.255', 'public'],
      ['198.51.101.0', 'public'],
      ['203.0.112.255', 'public'],
      ['203.0.114.0', 'public'],
      ['239.255.255.255', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['2001:200::1', 'public'],
      ['2001:1ff:ffff::1', 'reserved'],
      ['2001:db7:ffff::1', 'public'],
      ['2001:db9::1', 'public'],
      ['2002:c000:204::1', 'reserved'],
      ['3ffe:ffff::1', 'public'],
      ['4000::1', 'reserved'],
      ['::ffff:203.0.113.9', 'reserved'],
      ['64:ff9b::198.51.100.1', 'reserved'],
    ])('%s is %s', (address, kind) => {
      expect(classifyAddress(address)).toBe(kind);
    });
  });

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string(), (text) => {
      classifyAddress(text);
    }));
  });
});
