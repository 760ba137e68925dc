import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The server's memory at one moment; a field is absent where it could not be read. */
export interface MemoryReading {
  /** VmRSS of the server process (all its threads: main, SQLite writer, search readers), from /proc (Linux). */
  readonly rssBytes?: number;
  /** RssAnon: the threads' heaps, SQLite's page caches and other private memory. */
  readonly rssAnonBytes?: number;
  /** RssFile: file pages mapped in, mostly the SQLite file through its memory maps. */
  readonly rssFileBytes?: number;
  /**
   * The main thread's V8 heap in use, from GET /metrics (`nodejs_heap_size_used_bytes`): it includes the young
   * generation, so it swings by tens of megabytes between scavenges and shows a trend only over many samples.
   */
  readonly heapUsedBytes?: number;
}

/** VmRSS, RssAnon and RssFile of `pid` from /proc (Linux); empty elsewhere or once the process is gone. */
export function processMemory(pid: number): MemoryReading {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return {};
  }
  const field = (name: string): number | undefined => {
    const kb = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  };
  const entries = [
    ['rssBytes', field('VmRSS')],
    ['rssAnonBytes', field('RssAnon')],
    ['rssFileBytes', field('RssFile')],
  ] as const;
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

/** `nodejs_heap_size_used_bytes` from the vault's GET /metrics; undefined when it cannot be read. */
export async function metricsHeapUsed(url: string): Promise<number | undefined> {
  const text = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })
    .then((res) => (res.ok ? res.text() : ''))
    .catch(() => '');
  const value = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1];
  return value === undefined || !Number.isFinite(Number(value)) ? undefined : Number(value);
}

/** The bytes of the files directly in `dir`: the SQLite store keeps its database, WAL and key there. */
export function storeBytes(dir: string): number | undefined {
  try {
    return readdirSync(dir).reduce((n, name) => {
      const stat = statSync(join(dir, name), { throwIfNoEntry: false });
      return n + (stat?.isFile() ? stat.size : 0);
    }, 0);
  } catch {
    return undefined;
  }
}
