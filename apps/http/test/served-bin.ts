import { type ChildProcess, spawn } from 'node:child_process';
import { type Agent, request } from 'node:http';
import { join } from 'node:path';

/** The built `svc` command, run as a user runs it (`npm test` builds first). */
export const BIN = join(__dirname, '..', 'dist', 'src', 'bin', 'svc.js');

/** A running `svc serve`: its process, address, everything it printed so far, and its exit. */
export interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  /** The exit code and when it came (performance.now()). */
  readonly exited: Promise<{ readonly code: number | null; readonly at: number }>;
}

/** Every process started here, so a test file can kill what its tests did not stop (see {@link killServed}). */
const children: ChildProcess[] = [];

/** Starts `svc serve` on a free port with `env`; resolves once it logs that it listens. */
export function serveBin(env: Record<string, string>, startTimeoutMs = 20_000): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env.PATH, SVC_PORT: '0', SVC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: performance.now() })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), startTimeoutMs);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, url: (JSON.parse(line) as { url: string }).url, output: () => out, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
}

/** Kills every server a test left running. */
export function killServed(): void {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** A response as the process tests read it. */
export interface Reply {
  readonly status: number;
  readonly body: string;
}

/** One request to a served `svc`, on `agent` (false: a connection of its own); rejects on a connection error. */
export function send(
  url: string,
  agent: Agent | false,
  method: string,
  path: string,
  key: string,
  body?: unknown,
  type = 'application/json',
  headers: Readonly<Record<string, string>> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent, headers: { 'SVC-API-KEY': key, 'Content-Type': type, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** `send` on a connection of its own, the answer's body read as JSON (`{}` when empty). */
export async function sendForJson(url: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const reply = await send(url, false, method, path, key, body);
  return { status: reply.status, body: reply.body === '' ? {} : (JSON.parse(reply.body) as Record<string, unknown>) };
}

/** The management key a first start printed in its banner. */
export const bannerKey = (output: string): string => /management key \(shown once, store it now\): (\S+)/.exec(output)![1]!;
