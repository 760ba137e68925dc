/**
 * At most `limit` lookups of one kind at a time; the others wait their turn, in order. The system lookup
 * (getaddrinfo) runs on libuv's small shared thread pool and cannot be cancelled: a name whose DNS server never
 * answers holds a thread for the resolver's whole timeout. Webhook deliveries to such names (one tenant's webhooks,
 * say) filled the pool, and every proxy call of every tenant, even one the policy refuses by name, waited behind them
 * for 5-15 s. Gating the lookups of deliveries and of webhook URL checks leaves the rest of the pool to the proxy.
 */
export function gateLookups<A extends unknown[], R>(lookup: (...args: A) => Promise<R>, limit: number): (...args: A) => Promise<R> {
  let running = 0;
  const waiting: Array<() => void> = [];
  // A slot that ends goes straight to the first waiter (running stays as it is): were it freed first, a caller coming
  // in before the waiter resumes could take it too, one over the limit.
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async (...args: A): Promise<R> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await lookup(...args);
    } finally {
      release();
    }
  };
}
