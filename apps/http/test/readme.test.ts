import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The README's commands, run as a reader would after `npm install`. CI installs a fresh clone with `npm ci` before
 * it tests, so this is the first install there: a command that only works after a second install fails here.
 */
const ROOT = join(__dirname, '..', '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** Lines of the README's shell blocks that run the `svc` command. */
function svcCommands(text: string): string[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((block) => block.split('\n')).filter((line) => /^npx svc /.test(line.trim()));
}

/** Splits a command line into words, honouring double quotes (all the README uses). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe('the README, after one npm install', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('declares every workspace bin as a committed file, so npm can link it before the build', () => {
    const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
    for (const workspace of workspaces) {
      const manifest = JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
      for (const target of Object.values(manifest.bin ?? {})) {
        const tracked = spawnSync('git', ['ls-files', '--error-unmatch', join(workspace, target)], { cwd: ROOT, encoding: 'utf8' });
        expect({ target: join(workspace, target), tracked: tracked.status === 0 }).toEqual({ target: join(workspace, target), tracked: true });
      }
    }
    expect(realpathSync(join(ROOT, 'node_modules', '.bin', 'svc'))).toBe(realpathSync(join(ROOT, 'apps', 'http', 'bin', 'svc.js')));
  });

  it('shows at least one npx svc command', () => {
    expect(svcCommands(readme).length).toBeGreaterThan(0);
  });

  it.each(svcCommands(readme))('runs `%s`', (line) => {
    // --no: npx must use the workspace's own command, never fetch a package of that name.
    const [, ...args] = words(line.trim());
    const run = spawnSync('npx', ['--no', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
    expect({ status: run.status, stderr: run.stderr.replace(/npm warn[^\n]*\n/g, '') }).toEqual({ status: 0, stderr: '' });
    if (args[1] === 'tenants') {
      const printed = JSON.parse(run.stdout) as { application: { key: string } };
      expect(printed.application.key).toMatch(/^key_mgt_/);
    }
  });
});
