import fc from 'fast-check';
import { base58 } from './base58';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The textbook encoding, by BigInt: what the limb arithmetic must agree with. */
function reference(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

describe('base58', () => {
  it('encodes the Bitcoin test vectors', () => {
    const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
    expect(base58(new Uint8Array())).toBe('');
    expect(base58(hex('00'))).toBe('1');
    expect(base58(hex('0000'))).toBe('11');
    expect(base58(hex('61'))).toBe('2g');
    expect(base58(hex('626262'))).toBe('a3gV');
    expect(base58(hex('636363'))).toBe('aPEr');
    expect(base58(Uint8Array.from(Buffer.from('Hello World!')))).toBe('2NEpo7TZRRrLZSi2U');
    expect(base58(hex('00eb15231dfceb60925886b67d065299925915aeb172c06647'))).toBe('1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L');
    expect(base58(hex('ffffffff'))).toBe('7YXq9G');
  });

  it('agrees with the BigInt encoding on any bytes, leading zeros and 32-byte digests included (seeded)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat({ max: 4 }), (bytes, zeros) => {
        const input = Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes]);
        expect(base58(input)).toBe(reference(input));
      }),
      { seed: 58, numRuns: 2_000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (digest) => expect(base58(digest)).toBe(reference(digest))),
      { seed: 5858, numRuns: 1_000 },
    );
  });
});
