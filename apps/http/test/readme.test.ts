import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { as, harness } from './harness';

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

  // One data directory for the commands, run in the README's order: `svc audit verify` checks the store that
  // `svc tenants create` made (on a directory without a store it refuses, creating nothing).
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

/** One `curl` of the README's shell blocks (continuation lines and quoted bodies joined): its path, key variable and `-d` body. */
interface CurlCall {
  readonly path: string;
  readonly key: string;
  readonly body: string | undefined;
}

function curlCalls(text: string): CurlCall[] {
  const lines = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.replace(/\\\n\s*/g, ' ').split('\n'));
  const commands: string[] = [];
  for (const line of lines) {
    const open = commands.at(-1);
    // A line inside a quoted body (an odd number of single quotes so far) belongs to the command above it.
    if (open !== undefined && (open.split("'").length - 1) % 2 === 1) commands[commands.length - 1] = `${open}\n${line}`;
    else if (line.startsWith('curl ')) commands.push(line);
  }
  return commands.map((line) => ({
    path: /\$SVC(\/[^\s"?]*)/.exec(line)?.[1] ?? '',
    key: /SVC-API-KEY: \$(\w+)/.exec(line)?.[1] ?? '',
    body: /-d '([\s\S]*?)'(?:\s|$)/.exec(line)?.[1],
  }));
}

describe('the README curl walk-through, as written', () => {
  const calls = curlCalls(readme);
  const call = (path: string, key: string, marker = ''): CurlCall => {
    const found = calls.find((c) => c.path === path && c.key === key && (c.body ?? '').includes(marker));
    if (!found) throw new Error(`the README shows no curl of ${path} with $${key} ${marker}`);
    return found;
  };

  it('tokenizes and detokenizes its bulk example with the key it tells the reader to make for it', async () => {
    const h = await harness();
    const keyOf = async (marker: string): Promise<string> =>
      ((await as(h.app, h.key).post('/applications').send(JSON.parse(call('/applications', 'MGT', marker).body!)).expect(201)).body as { key: string }).key;
    const payments = await keyOf('Payments backend');
    const bulk = await keyOf('Bulk import');
    const tokenize = JSON.parse(call('/tokenize', 'BULK').body!) as object;
    // The payments backend's rules let it create cards only: as the README says, its key gets a 403 naming each value.
    const refused = await as(h.app, payments).post('/tokenize').send(tokenize).expect(403);
    expect(Object.keys((refused.body as { errors: object }).errors).sort()).toEqual(['customer.name', 'customer.tags[0]']);
    const made = (await as(h.app, bulk).post('/tokenize').send(tokenize).expect(201)).body as {
      card: { id: string; _extras: unknown };
      customer: { name: string; tags: string[] };
    };
    expect(made.card._extras).toEqual({ deduplicated: false });
    // The README's detokenize body, its placeholders replaced by the ids just made.
    const detokenize = call('/detokenize', 'BULK')
      .body!.replaceAll('<card token id>', made.card.id)
      .replaceAll('<name token id>', made.customer.name);
    const shown = (await as(h.app, bulk).post('/detokenize').set('Content-Type', 'application/json').send(detokenize).expect(200)).body as Record<string, string>;
    expect([shown.number, shown.name, typeof shown.created]).toEqual(['4242424242424242', 'Ada', 'string']);
  });
});
