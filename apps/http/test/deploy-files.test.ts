import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVE_NODE_FLAGS } from '../src/bin/node-flags';

/**
 * The Dockerfile and compose.yaml cannot be built here (no Docker engine): what can be checked without one is that
 * they name files and settings that exist, so they do not drift from the code they package.
 */
const ROOT = join(__dirname, '..', '..', '..');
const read = (name: string) => readFileSync(join(ROOT, name), 'utf8');

describe('the container files', () => {
  const dockerfile = read('Dockerfile');

  it('builds on Node 20 slim in two stages and runs as a non-root user with data in a volume', () => {
    expect(dockerfile.match(/^FROM node:20-slim/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(/SVC_DATA_DIR=\/data/);
    expect(dockerfile).toMatch(/SVC_HOST=0\.0\.0\.0/);
  });

  it('copies files that exist and starts the built command line, probing /readyz', () => {
    for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const source of sources!.split(/\s+/)) expect({ source, exists: existsSync(join(ROOT, source)) }).toEqual({ source, exists: true });
    }
    const [, flags, entrypoint] = /^ENTRYPOINT \["node", (.*)"([^"]+)"\]$/m.exec(dockerfile) ?? [];
    expect(entrypoint).toBe('apps/http/dist/src/bin/svc.js');
    expect(flags).toBe(SERVE_NODE_FLAGS.map((flag) => `"${flag}", `).join(''));
    // npm test builds before it tests: the command the image starts is there.
    expect(existsSync(join(ROOT, entrypoint!))).toBe(true);
    expect(dockerfile).toContain("/readyz'");
  });

  it('keeps local state and build output out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '**/node_modules', '**/dist', 'data', '.git']) expect(ignored).toContain(entry);
  });

  it('runs svc on a MongoDB replica set with a master key that must be given', () => {
    const compose = read('compose.yaml');
    expect(compose).toMatch(/--replSet", "rs0"/);
    expect(compose).toMatch(/MONGODB_URI: mongodb:\/\/mongo:27017\/svc\?replicaSet=rs0/);
    expect(compose).toMatch(/SVC_MASTER_KEY: \$\{SVC_MASTER_KEY:\?/);
    expect(compose).toMatch(/condition: service_healthy/);
  });

  it('starts `svc serve` with the serving flags in `npm start` too', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['start'];
    expect(start).toContain(`node ${SERVE_NODE_FLAGS.join(' ')} apps/http/dist/src/bin/svc.js serve`);
  });
});
