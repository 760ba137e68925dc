#!/usr/bin/env node
// The `svc` command. This file is committed, not built: npm links a workspace's bins before `prepare` builds
// dist/, so a bin that pointed into dist/ was never linked on a fresh clone's first `npm install`.
'use strict';
const path = require('node:path');

const built = path.join(__dirname, '..', 'dist', 'src', 'bin', 'svc.js');
try {
  require.resolve(built);
} catch {
  process.stderr.write('svc: the command is not built yet; run `npm install` (or `npm run build`) at the repository root.\n');
  process.exit(1);
}
require(built);
