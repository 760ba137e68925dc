import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface Child {
  readonly process: ChildProcess;
  readonly url: string;
  stop(): Promise<void>;
}

/** Spawns a node script (with `nodeFlags` before it) and waits until `ready(output)` says it listens. */
export function startNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  url: string,
  ready: (output: string) => boolean,
  nodeFlags: readonly string[] = [],
): Promise<Child> {
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (ready(output)) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve({
          process: child,
          url,
          stop: () =>
            new Promise((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    onData(Buffer.alloc(0));
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${output}`));
    });
  });
}
