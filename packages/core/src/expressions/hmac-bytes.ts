import { ExpressionError } from './expression-error';

/** Why bytes (`hmac` without an encoder) are refused wherever they would become text or a value. */
export const BYTES_OUTPUT = 'An output is bytes (hmac gives bytes): pipe it into an encoder such as to_base16 or to_base64.';

/**
 * What `hmac` gives: bytes that only the encoders (`to_base16`, `to_base64`) or another `hmac` read. Turned into text
 * any other way (an output, `append`, `join`, `json`, a comparison's string form) it throws, so no expression can
 * print raw digest bytes, or the bytes of a Node Buffer serialized as `{"type":"Buffer",…}`.
 */
export class HmacBytes {
  constructor(readonly bytes: Buffer) {}

  toString(): string {
    throw new ExpressionError(BYTES_OUTPUT);
  }

  toJSON(): never {
    throw new ExpressionError(BYTES_OUTPUT);
  }

  valueOf(): never {
    throw new ExpressionError(BYTES_OUTPUT);
  }
}
