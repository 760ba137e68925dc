import { type Context, type Emitter, toValue } from 'liquidjs';
import { ExpressionError } from './expression-error';
import { liquidText } from './filters/args';
import { BYTES_OUTPUT, HmacBytes } from './hmac-bytes';

/**
 * Collects rendered text like liquidjs's SimpleEmitter, and charges what it appends to the render's memory
 * limit, so a cheap loop cannot build an enormous string (`{% for i in (1..9999) %}{{ data }}{% endfor %}`).
 * The first piece is free: an output that is a single value is that value, not a new string, and whatever
 * built it (a filter, or the token's own data) was bounded already.
 */
export class ChargingEmitter implements Emitter {
  buffer = '';

  constructor(private readonly memory: Context['memoryLimit']) {}

  write(html: unknown): void {
    if (toValue(html) instanceof HmacBytes) throw new ExpressionError(BYTES_OUTPUT);
    const text = liquidText(html);
    if (this.buffer !== '') this.memory.use(text.length);
    this.buffer += text;
  }
}

/** A ChargingEmitter that takes text only: an output that is nil, an object or a list is an error, not `` or `[object Object]`. */
export class TextOnlyEmitter extends ChargingEmitter {
  override write(html: unknown): void {
    const value: unknown = toValue(html);
    if (value instanceof HmacBytes) throw new ExpressionError(BYTES_OUTPUT);
    if (value === null || value === undefined || typeof value === 'object') {
      throw new ExpressionError('An output renders no text (nothing, an object or a list).');
    }
    super.write(value);
  }
}

/**
 * A ChargingEmitter for one text value: an output that is an object or a list is an error, not `[object Object]` or
 * its items run together; nil prints nothing, as in Liquid (`{{ data.a }}-{{ data.b }}` with no `b` is `x-`).
 */
export class SingleValueEmitter extends ChargingEmitter {
  override write(html: unknown): void {
    const value: unknown = toValue(html);
    if (value instanceof HmacBytes) throw new ExpressionError(BYTES_OUTPUT);
    if (value !== null && value !== undefined && typeof value === 'object') {
      throw new ExpressionError('An output renders no single text value (an object or a list).');
    }
    super.write(value);
  }
}
