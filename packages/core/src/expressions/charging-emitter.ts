import { toValue, type Context, type Emitter } from 'liquidjs';

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
    const text = asText(html);
    if (this.buffer !== '') this.memory.use(text.length);
    this.buffer += text;
  }
}

/** liquidjs's stringify: strings as they are, null/undefined as nothing, arrays joined, anything else String(). */
function asText(value: unknown): string {
  const resolved: unknown = toValue(value);
  if (typeof resolved === 'string') return resolved;
  if (resolved === null || resolved === undefined) return '';
  if (Array.isArray(resolved)) return resolved.map(asText).join('');
  return String(resolved);
}
