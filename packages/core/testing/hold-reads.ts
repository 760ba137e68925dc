import type { TokenRepository } from '../src/tokens/token.repository';

/**
 * Makes the next `count` calls of `tokens.findById` wait for one another: each reads, then none returns until all
 * `count` have read. That many concurrent use cases then surely work from the same version of a token and race on
 * the write, instead of racing only when the scheduler happens to interleave them. Later reads pass straight through.
 * Patches the repository object in place, so it also reaches use cases already wired to it (the HTTP app).
 */
export function holdReads(tokens: TokenRepository, count: number): void {
  const hadOwn = Object.prototype.hasOwnProperty.call(tokens, 'findById');
  const original = tokens.findById;
  let arrived = 0;
  let releaseAll!: () => void;
  const allArrived = new Promise<void>((resolve) => (releaseAll = resolve));
  tokens.findById = async (tenantId, id, now) => {
    const found = await original.call(tokens, tenantId, id, now);
    arrived += 1;
    if (arrived === count) {
      if (hadOwn) tokens.findById = original;
      else delete (tokens as Partial<TokenRepository>).findById;
      releaseAll();
    }
    await allArrived;
    return found;
  };
}
