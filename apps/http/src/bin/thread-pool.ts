/**
 * libuv's thread pool runs the system's name lookups (getaddrinfo), besides file and crypto work, and Node gives it
 * four threads. Lookups of names whose DNS never answers hold a thread each for the resolver's whole timeout; the
 * webhook clients take at most three at a time (gateLookups), so eight threads leave the proxy and the rest five. An
 * operator's own UV_THREADPOOL_SIZE is kept. This module is imported first: the pool reads the variable when it
 * starts, on its first task.
 */
process.env.UV_THREADPOOL_SIZE ??= '8';
