/**
 * The Node flags `svc serve` is started with wherever the project starts it (`npm start`, the Dockerfile, the
 * benchmarks); a test holds those places to this list.
 *
 * `--max-semi-space-size=32`: V8's young generation grows to 32 MiB semi-spaces instead of 16. A bulk tokenize of 100
 * tokens allocates a few MiB of short-lived objects (request bodies, sealed values, audit events), and with the
 * default size most of them outlived a scavenge and were copied: server CPU per bulk tokenize request is about 10%
 * lower than with 16 (docs/benchmarks.md), for at most 64 MiB more memory. 64 MiB (used until issue 17) saved no more
 * CPU, but each scavenge of the larger space paused the event loop for 10–20 ms, which set searches' p99 (14 ms for a
 * one-result search against 7–9 ms with 16 or 32).
 * It must be given on the command line (or in NODE_OPTIONS): V8 sizes the heap when the process starts.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
