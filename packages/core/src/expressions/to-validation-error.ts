import { LiquidError } from 'liquidjs';
import { ValidationError } from '../shared/errors';
import { ExpressionError } from './expression-error';

/**
 * Turns any failure of an expression into a 400 naming the field. Only messages known to be free of
 * token data reach the caller: our filters' own messages, and parse errors (which describe the template,
 * never the data). Anything else raised while rendering gets a generic message.
 */

function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 20 && LiquidError.is(current); depth++) {
    const original: unknown = Reflect.get(current as object, 'originalError');
    if (original === undefined) break;
    current = original;
  }
  return current;
}

function messageOf(error: unknown, phase: 'parse' | 'render'): string {
  const cause = rootCause(error);
  if (cause instanceof ExpressionError) return cause.message;
  const text = cause instanceof Error ? cause.message : '';
  if (/limit exceeded$/.test(text)) return 'The expression exceeds the allowed size, time or memory.';
  if (phase === 'parse' && LiquidError.is(error)) return `The expression is invalid: ${(error as Error).message}`;
  if (/^undefined filter: [\w-]+$/.test(text)) return `The expression is invalid: ${text}`;
  return 'The expression could not be evaluated.';
}

export function toValidationError(field: string, error: unknown, phase: 'parse' | 'render'): ValidationError {
  if (error instanceof ValidationError) return error;
  return ValidationError.field(field, messageOf(error, phase));
}
