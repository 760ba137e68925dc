// Bundles the console into dist/: index.html, console.js and console.css, nothing fetched at run time.
// Run by the package's `build` script (turbo runs it during `npm install`'s prepare and `npm test`).
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await build({
  absWorkingDir: here,
  entryPoints: [
    { in: 'src/main.tsx', out: 'console' },
    { in: 'src/console.css', out: 'console' },
  ],
  outdir: dist,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  // No source maps and no license banners: the page loads exactly two files besides itself.
  sourcemap: false,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});
await copyFile(join(here, 'src', 'index.html'), join(dist, 'index.html'));
