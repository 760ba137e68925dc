import { char, chars, count, liquidText, textOrNull } from './args';
import { charge, type FilterSet, type FilterThis } from './filter-set';

/** `pad_left`, `pad_right` and the `replace` override. */

function pad(filter: string, side: 'left' | 'right') {
  return function (this: FilterThis, value: unknown, length?: unknown, padChar?: unknown): string | null {
    const target = count(filter, 'length', length);
    const fill = char(filter, 'pad_char', padChar);
    const text = textOrNull(filter, value);
    if (text === null) return null;
    const missing = target - chars(text).length;
    if (missing <= 0) return text;
    charge(this, target);
    return side === 'left' ? fill.repeat(missing) + text : text + fill.repeat(missing);
  };
}

/** Standard `replace: search, replacement`; with one argument the search text is removed. */
function replace(this: FilterThis, value: unknown, search?: unknown, replacement?: unknown): string {
  const text = liquidText(value);
  const parts = text.split(liquidText(search));
  const by = liquidText(replacement);
  charge(this, text.length + (parts.length - 1) * by.length);
  return parts.join(by);
}

export const textFilters: FilterSet = {
  pad_left: pad('pad_left', 'left'),
  pad_right: pad('pad_right', 'right'),
  replace,
};
