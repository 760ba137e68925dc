#!/usr/bin/env node
// First: it sizes libuv's thread pool before anything uses it.
import './thread-pool';
import 'reflect-metadata';
import { main } from '../cli';

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    // Exit rather than wait: after an unexpected failure a thread or a socket may still be open and would keep the
    // command running forever. Standard error is written synchronously to files, pipes and terminals.
    process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
