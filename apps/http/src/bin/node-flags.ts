/**
 * The Node flags `svc serve` is started with wherever the project starts it (`npm start`, the Dockerfile, the
 * benchmarks); a test holds those places to this list.
 *
 * `--max-semi-space-size=64`: V8's young generation grows to 64 MiB semi-spaces instead of 16. A bulk tokenize of 100
 * tokens allocates a few MiB of short-lived objects (request bodies, sealed values, audit events), and with the
 * default size most of them outlived a scavenge and were copied: server CPU per request fell by about 15% for bulk
 * tokenize and 4% for reveal-get with the larger space (docs/benchmarks.md), for at most 128 MiB more memory.
 * It must be given on the command line (or in NODE_OPTIONS): V8 sizes the heap when the process starts.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
