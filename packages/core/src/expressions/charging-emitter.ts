import { type Context, type Emitter, toValue } from 'liquidjs';
import { ExpressionError } from './expression-error';
import { liquidText } from './filters/args';
import { BYTES_OUTPUT, HmacBytes } from './hmac-bytes';

/**
 * Which outputs an emitter takes:
 * - `any`: every output, printed as Liquid prints it (nil as nothing, a list's items run together);
 * - `text`: text only (a proxy's header value): an output that is nil, an object or a list is an error, not `` or
 *   `[object Object]`;
 * - `single`: one text value (a search index): an object or a list is an error, not `[object Object]` or its items run
 *   together; nil prints nothing, as in Liquid (`{{ data.a }}-{{ data.b }}` with no `b` is `x-`).
 * Bytes (`hmac` without an encoder) are refused by all three.
 */
export type Outputs = 'any' | 'text' | 'single';

const NO_TEXT = 'An output renders no text (nothing, an object or a list).';
const NO_SINGLE_VALUE = 'An output renders no single text value (an object or a list).';

/**
 * Collects rendered text like liquidjs's SimpleEmitter, and charges what it appends to the render's memory
 * limit, so a cheap loop cannot build an enormous string (`{% for i in (1..9999) %}{{ data }}{% endfor %}`).
 * The first piece is free: an output that is a single value is that value, not a new string, and whatever
 * built it (a filter, or the token's own data) was bounded already.
 */
export class ChargingEmitter implements Emitter {
  buffer = '';

  constructor(
    private readonly memory: Context['memoryLimit'],
    private readonly outputs: Outputs = 'any',
  ) {}

  write(html: unknown): void {
    const value: unknown = toValue(html);
    if (value instanceof HmacBytes) throw new ExpressionError(BYTES_OUTPUT);
    if (this.outputs !== 'any' && typeof value === 'object' && value !== null) {
      throw new ExpressionError(this.outputs === 'text' ? NO_TEXT : NO_SINGLE_VALUE);
    }
    if (this.outputs === 'text' && (value === null || value === undefined)) throw new ExpressionError(NO_TEXT);
    const text = liquidText(value);
    if (this.buffer !== '') this.memory.use(text.length);
    this.buffer += text;
  }
}
