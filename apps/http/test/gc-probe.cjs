// Preloaded into `svc serve` by the soak's leak check only (test/soak.process.test.ts starts it with
// `node --expose-gc --require <this file>`); the product has no such hook. On SIGUSR2: a full garbage collection,
// then the main thread's memory after it as one JSON line on standard error.
'use strict';

process.on('SIGUSR2', () => {
  global.gc();
  const { heapUsed, external, arrayBuffers, rss } = process.memoryUsage();
  process.stderr.write(`${JSON.stringify({ gc_probe: { heapUsed, external, arrayBuffers, rss } })}\n`);
});
