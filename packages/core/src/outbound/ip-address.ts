/**
 * IP literals as the outbound policy sees them: canonical text (what DNS resolution returns and what `new URL()`
 * leaves in `hostname`, brackets aside) turned into bytes, and the bytes sorted into the ranges the policy refuses.
 * Pure: no resolver, no socket.
 */

/** Where an address points. Everything but `public` is refused unless SVC_OUTBOUND_ALLOW lists the destination. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'shared'
  | 'multicast'
  | 'reserved';

/** 4 bytes (IPv4) or 16 bytes (IPv6); undefined when the text is not an IP literal. */
export function parseIpAddress(text: string): Uint8Array | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return bare.includes(':') ? parseIpv6(bare) : parseIpv4(bare);
}

/** Dotted-quad decimal only: `new URL()` has already turned `0x7f.1`, `2130706433` or `0177.0.0.1` into this form. */
function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return Uint8Array.from(parts.map(Number));
}

function parseIpv6(text: string): Uint8Array | undefined {
  const zoneless = text.split('%')[0]!;
  const halves = zoneless.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = parseIpv4(part);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
        out.push(parseInt(part, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // An embedded IPv4 part may only end the address.
  if (halves.length === 2 && halves[0]!.includes('.')) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}

type Range = readonly [prefix: readonly number[], bits: number, kind: AddressClass];

/*
 * The IANA special-purpose address registries (iana-ipv4-special-registry, iana-ipv6-special-registry), every entry
 * not globally reachable, plus multicast. Entries marked globally reachable there (the AS112 and AMT ranges, the NAT64
 * prefix, which is judged by the IPv4 address it carries) are public. First match wins: the metadata address sits
 * inside link-local, fd00:ec2::254 inside fc00::/7.
 */
const IPV4_RANGES: readonly Range[] = [
  [[0], 8, 'unspecified'], // "this network": 0.0.0.0 reaches the local host on Linux
  [[127], 8, 'loopback'],
  [[10], 8, 'private'],
  [[172, 16], 12, 'private'],
  [[192, 168], 16, 'private'],
  [[169, 254, 169, 254], 32, 'metadata'],
  [[169, 254], 16, 'link_local'],
  [[100, 64], 10, 'shared'], // carrier-grade NAT; also where some clouds keep their metadata service
  // IETF protocol assignments (DS-Lite, NAT64 discovery, …). Its two anycast addresses (192.0.0.9 PCP, 192.0.0.10
  // TURN) are globally reachable, but no destination of a webhook or a proxy: the whole /24 is refused.
  [[192, 0, 0], 24, 'reserved'],
  [[192, 0, 2], 24, 'reserved'], // TEST-NET-1, documentation
  [[192, 88, 99], 24, 'reserved'], // 6to4 relay anycast, deprecated (RFC 7526)
  [[198, 18], 15, 'reserved'], // benchmarking
  [[198, 51, 100], 24, 'reserved'], // TEST-NET-2, documentation
  [[203, 0, 113], 24, 'reserved'], // TEST-NET-3, documentation
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'], // future use, and 255.255.255.255, limited broadcast
];

const IPV6_RANGES: readonly Range[] = [
  [[], 128, 'unspecified'], // ::
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54], 128, 'metadata'],
  [[0xfc], 7, 'private'], // unique local
  [[0xfe, 0x80], 10, 'link_local'],
  [[0xfe, 0xc0], 10, 'private'], // site-local, deprecated but still routed by some
  [[0xff], 8, 'multicast'],
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'private'], // local-use NAT64
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'reserved'], // discard-only
  [[0x01, 0x00, 0, 0, 0, 0, 0, 1], 64, 'reserved'], // dummy prefix (RFC 9780)
  // IETF protocol assignments: Teredo (2001::/32, which tunnels to an address it only obfuscates), benchmarking
  // (2001:2::/48), ORCHID. Its anycast addresses and AMT, AS112 and DRIP ranges are globally reachable, but no
  // destination of a webhook or a proxy: the whole /23 is refused.
  [[0x20, 0x01, 0x00, 0x00], 23, 'reserved'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'reserved'], // documentation
  [[0x3f, 0xff], 20, 'reserved'], // documentation (RFC 9637)
  [[0x5f, 0x00], 16, 'reserved'], // segment routing SIDs (RFC 9602)
];

/** IPv6 prefixes that carry an IPv4 address a gateway may deliver to: judged by that address. */
const EMBEDDED_IPV4: readonly (readonly [prefix: readonly number[], bits: number, offset: number])[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 12], // IPv4-mapped ::ffff:a.b.c.d
  [[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96, 12], // IPv4-translated ::ffff:0:a.b.c.d
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96, 12], // IPv4-compatible ::a.b.c.d (deprecated)
  [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96, 12], // NAT64 64:ff9b::a.b.c.d
  [[0x20, 0x02], 16, 2], // 6to4 2002:aabb:ccdd::
];

/**
 * Global unicast: every public IPv6 address lies in 2000::/3. The rest of the space is special-purpose or reserved by
 * the IETF (RFC 4291 §2.4), the embedded-IPv4 forms above aside.
 */
const GLOBAL_UNICAST_V6: readonly [prefix: readonly number[], bits: number] = [[0x20], 3];

function inPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if ((bytes[bit / 8]! & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** The class of a parsed address (4 or 16 bytes). */
export function classifyAddressBytes(bytes: Uint8Array): AddressClass {
  if (bytes.length === 4) return IPV4_RANGES.find(([p, bits]) => inPrefix(bytes, p, bits))?.[2] ?? 'public';
  const own = IPV6_RANGES.find(([p, bits]) => inPrefix(bytes, p, bits));
  if (own) return own[2];
  const embedded = EMBEDDED_IPV4.find(([p, bits]) => inPrefix(bytes, p, bits));
  if (embedded) return classifyAddressBytes(bytes.slice(embedded[2], embedded[2] + 4));
  return inPrefix(bytes, ...GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
}

/** The class of an IP literal (`127.0.0.1`, `::1`, `[::ffff:7f00:1]`); undefined when it is not one. */
export function classifyAddress(text: string): AddressClass | undefined {
  const bytes = parseIpAddress(text);
  return bytes && classifyAddressBytes(bytes);
}
