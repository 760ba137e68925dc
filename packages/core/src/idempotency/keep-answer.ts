import type { WriteEffects } from '../audit/write-effects';
import type { KeptAnswer } from './idempotency';

/**
 * Seals the answer a write makes, for the store to keep in the write's own transaction (`WriteEffects.kept`): the
 * answer to an idempotency key, which a retry after a crash then replays instead of writing again. The creates take
 * one: their answer (the object made, its key or secret shown once) is known before their write.
 */
export type KeepAnswer<T> = (answer: T) => Promise<KeptAnswer>;

/** `effects` with `answer` sealed by `keep` to be kept with them; `effects` as they are without `keep`. */
export async function keptWith<T>(effects: WriteEffects, keep: KeepAnswer<T> | undefined, answer: T): Promise<WriteEffects> {
  return keep ? { ...effects, kept: await keep(answer) } : effects;
}
