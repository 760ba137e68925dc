#!/usr/bin/env node
import 'reflect-metadata';
import { main } from '../cli';

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
