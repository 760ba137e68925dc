import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The built logger, as `svc serve` loads it (`npm test` builds first). */
const LOGGER = join(__dirname, '..', 'dist', 'src', 'logger.js');

/** Runs `script` in a fresh node with the built Logger in scope; its stdout is a pipe, as under a supervisor. */
function run(script: string): { status: number | null; lines: string[]; stderr: string } {
  const child = spawnSync(process.execPath, ['-e', `const { Logger } = require(${JSON.stringify(LOGGER)});\n${script}`], { encoding: 'utf8' });
  return { status: child.status, lines: child.stdout.split('\n').filter(Boolean), stderr: child.stderr };
}

describe('the stdout logger', () => {
  it('loses no line written right before process.exit, even past a full pipe buffer', () => {
    const { status, lines, stderr } = run(`
      const logger = new Logger('info');
      for (let i = 0; i < 5000; i++) logger.info('request', { i, route: '/tokens/:id', status: 200 });
      logger.error('second signal during shutdown: exiting without draining', { signal: 'SIGTERM' });
      process.exit(1);
    `);
    expect([status, stderr]).toEqual([1, '']);
    expect(lines).toHaveLength(5001);
    expect(JSON.parse(lines[4999]!)).toMatchObject({ level: 'info', msg: 'request', i: 4999 });
    expect(lines[5000]).toMatch(/^\{"time":"[^"]+","level":"error","msg":"second signal during shutdown: exiting without draining","signal":"SIGTERM"\}$/);
  });

  it('writes the line logged while an uncaught exception brings the process down', () => {
    const { status, lines } = run(`
      const logger = new Logger('info');
      process.on('uncaughtException', (error) => { logger.error('crashed', { error: error.name, key: 'key_pvt_secret' }); process.exit(70); });
      setImmediate(() => { throw new TypeError('boom'); });
    `);
    expect(status).toBe(70);
    expect(lines.map((line) => JSON.parse(line) as object)).toEqual([{ time: expect.any(String), level: 'error', msg: 'crashed', error: 'TypeError', key: '[redacted]' }]);
  });

  it('shares one destination, writes nothing when silent, and keeps the process alive no longer than its work', () => {
    const { status, lines } = run(`
      new Logger('silent').error('not written');
      const a = new Logger('info'), b = new Logger('debug');
      a.info('one'); b.debug('two'); a.info('three');
    `);
    expect(status).toBe(0);
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['one', 'two', 'three']);
  });
});
