import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BIN, killServed, serveBin } from './served-bin';

/** `svc` run as a user runs it, on `dataDir`. */
function svc(dataDir: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir }, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface Made {
  tenantId: string;
  key: string;
}

function createTenant(dataDir: string, name: string): Made {
  const run = svc(dataDir, 'tenants', 'create', '--name', name, '--owner-email', `owner@${name.toLowerCase()}.test`);
  if (run.status !== 0) throw new Error(`tenants create failed: ${run.stderr}`);
  const made = JSON.parse(run.stdout) as { tenant: { id: string }; application: { key: string } };
  return { tenantId: made.tenant.id, key: made.application.key };
}

/** A tenant's chained events in chain order, as stored. */
function chain(file: string, tenantId: string): Array<{ id: string; chain_seq: number }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT id, chain_seq FROM audit_events WHERE tenant_id = ? AND chain_seq IS NOT NULL ORDER BY chain_seq').all(tenantId) as Array<{ id: string; chain_seq: number }>;
  } finally {
    db.close();
  }
}

/** Changes the SQLite file behind svc's back. */
function tamper(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  try {
    const changed = db.prepare(sql).run(...params).changes;
    if (changed === 0) throw new Error(`tampering changed nothing: ${sql}`);
  } finally {
    db.close();
  }
}

/**
 * `svc audit verify` on a real data directory: events written by `svc serve` (its shutdown writes and chains the
 * batched ones), then the file altered with SQLite directly, the way someone with the file but not the key would.
 */
describe('svc audit verify', () => {
  let root: string;
  let dataDir: string;
  let acme: Made;
  let other: Made;

  beforeAll(async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
    root = mkdtempSync(join(tmpdir(), 'svc-audit-verify-'));
    dataDir = join(root, 'clean');
    acme = createTenant(dataDir, 'Acme');
    other = createTenant(dataDir, 'Other');
    const served = await serveBin({ SVC_DATA_DIR: dataDir });
    const call = (key: string, method: string, path: string, body?: object) =>
      fetch(`${served.url}${path}`, {
        method,
        headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json', 'SVC-TRACE-ID': 'process-run' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    for (let i = 0; i < 4; i++) {
      const created = await call(acme.key, 'POST', '/applications', { name: `app ${i}`, type: 'private', permissions: ['token:read'] });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await call(acme.key, 'GET', `/applications/${id}`)).status).toBe(200);
    }
    expect((await call(other.key, 'GET', '/applications')).status).toBe(200);
    expect((await call('key_unknown', 'GET', '/applications')).status).toBe(401);
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
  }, 60_000);

  afterAll(() => {
    killServed();
    rmSync(root, { recursive: true, force: true });
  });

  /** A copy of the clean data directory to tamper with. */
  function copy(name: string): { dir: string; file: string } {
    const dir = join(root, name);
    cpSync(dataDir, dir, { recursive: true });
    return { dir, file: join(dir, 'svc.db') };
  }

  it('passes on the untouched file, naming each tenant and the system stream', () => {
    expect(chain(join(dataDir, 'svc.db'), acme.tenantId).length).toBeGreaterThanOrEqual(8);
    const run = svc(dataDir, 'audit', 'verify');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`tenant ${acme.tenantId}: ok, \\d+ event\\(s\\) verified`));
    expect(run.stdout).toContain(`tenant ${other.tenantId}: ok`);
    expect(run.stdout).toMatch(/system stream: ok, [1-9]\d* event\(s\) verified/);
    expect(run.stdout).not.toContain('FAILED');
  });

  it("names an event whose message was altered, and --tenant checks only the tenant it names", () => {
    const { dir, file } = copy('altered');
    const target = chain(file, acme.tenantId)[3]!;
    tamper(file, "UPDATE audit_events SET message = 'Nothing happened here' WHERE tenant_id = ? AND id = ?", acme.tenantId, target.id);
    const run = svc(dir, 'audit', 'verify');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`tenant ${acme.tenantId}: FAILED at chain_seq ${target.chain_seq}: event ${target.id} is altered`);
    expect(run.stdout).toContain(`tenant ${other.tenantId}: ok`);

    const theirs = svc(dir, 'audit', 'verify', '--tenant', other.tenantId);
    expect(theirs.status).toBe(0);
    expect(theirs.stdout).toContain(`tenant ${other.tenantId}: ok`);
    expect(theirs.stdout).not.toContain(acme.tenantId);
    expect(theirs.stdout).not.toContain('system stream');
    const mine = svc(dir, 'audit', 'verify', '--tenant', acme.tenantId);
    expect(mine.status).toBe(1);
    expect(mine.stdout).toContain(`event ${target.id} is altered`);
    expect(mine.stdout).not.toContain(other.tenantId);

    // A tenant id with no events at all is a mistyped id, never a clean chain.
    const unknown = svc(dir, 'audit', 'verify', '--tenant', '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toContain('tenant 00000000-0000-4000-8000-000000000000 has no audit events');
  });

  it('names an event whose actor, outcome, trace id or created_at was altered', () => {
    const columns: Array<[string, string]> = [
      ['actor_id', 'someone-else'],
      ['outcome', 'denied'],
      ['trace_id', 'another-trace'],
    ];
    for (const [column, value] of columns) {
      const { dir, file } = copy(`altered-${column}`);
      const target = chain(file, acme.tenantId)[2]!;
      tamper(file, `UPDATE audit_events SET ${column} = ? WHERE tenant_id = ? AND id = ?`, value, acme.tenantId, target.id);
      const run = svc(dir, 'audit', 'verify', '--tenant', acme.tenantId);
      expect([column, run.status, run.stdout]).toEqual([column, 1, expect.stringContaining(`event ${target.id} is altered`)]);
    }
    const { dir, file } = copy('altered-created-at');
    const target = chain(file, acme.tenantId)[2]!;
    tamper(file, 'UPDATE audit_events SET created_at = created_at - 86400000 WHERE tenant_id = ? AND id = ?', acme.tenantId, target.id);
    expect(svc(dir, 'audit', 'verify').stdout).toContain(`event ${target.id} is altered`);
  });

  it('names the event after a removed one', () => {
    const { dir, file } = copy('removed');
    const events = chain(file, acme.tenantId);
    tamper(file, 'DELETE FROM audit_events WHERE tenant_id = ? AND id = ?', acme.tenantId, events[4]!.id);
    const run = svc(dir, 'audit', 'verify');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`FAILED at chain_seq ${events[5]!.chain_seq}: event ${events[5]!.id} is preceded by a removed event`);
  });

  it('names the second event when the first was removed', () => {
    const { dir, file } = copy('removed-first');
    const events = chain(file, acme.tenantId);
    tamper(file, 'DELETE FROM audit_events WHERE tenant_id = ? AND id = ?', acme.tenantId, events[0]!.id);
    const run = svc(dir, 'audit', 'verify', '--tenant', acme.tenantId);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`event ${events[1]!.id} is preceded by a removed event`);
  });

  it('names events whose places were swapped as reordered', () => {
    const { dir, file } = copy('reordered');
    const events = chain(file, acme.tenantId);
    const [a, b] = [events[2]!, events[3]!];
    tamper(file, 'UPDATE audit_events SET chain_seq = -1 WHERE tenant_id = ? AND id = ?', acme.tenantId, a.id);
    tamper(file, 'UPDATE audit_events SET chain_seq = ? WHERE tenant_id = ? AND id = ?', a.chain_seq, acme.tenantId, b.id);
    tamper(file, 'UPDATE audit_events SET chain_seq = ? WHERE tenant_id = ? AND id = ?', b.chain_seq, acme.tenantId, a.id);
    const run = svc(dir, 'audit', 'verify');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`FAILED at chain_seq ${a.chain_seq}: event ${b.id} is reordered`);
  });

  it('names an event forged at the head of the chain, and counts a row inserted without a place', () => {
    const forged = copy('forged');
    const events = chain(forged.file, acme.tenantId);
    const last = events.at(-1)!;
    tamper(
      forged.file,
      `INSERT INTO audit_events (tenant_id, id, actor_id, actor_type, entity_type, entity_id, operation, outcome, message, trace_id, created_at, chain_seq, prev_hash, hash)
       SELECT tenant_id, 'forged-event', actor_id, actor_type, entity_type, entity_id, 'delete', outcome, 'Application deleted', trace_id, created_at, ?, hash, 'made-up'
       FROM audit_events WHERE tenant_id = ? AND id = ?`,
      last.chain_seq + 1,
      acme.tenantId,
      last.id,
    );
    const run = svc(forged.dir, 'audit', 'verify', '--tenant', acme.tenantId);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`FAILED at chain_seq ${last.chain_seq + 1}: event forged-event is altered`);

    // A row with no place, older than the chainer's grace period: inserted behind svc's back, or the chainer stalled.
    const inserted = copy('inserted');
    tamper(
      inserted.file,
      `INSERT INTO audit_events (tenant_id, id, actor_id, actor_type, entity_type, entity_id, operation, outcome, message, trace_id, created_at)
       SELECT tenant_id, 'inserted-event', actor_id, actor_type, entity_type, entity_id, operation, outcome, message, trace_id, created_at - 3600000
       FROM audit_events WHERE tenant_id = ? AND id = ?`,
      acme.tenantId,
      last.id,
    );
    const unchained = svc(inserted.dir, 'audit', 'verify', '--tenant', acme.tenantId);
    expect(unchained.status).toBe(1);
    expect(unchained.stdout).toMatch(/FAILED: 1 event\(s\) still unchained/);
  });

  it('names a tampered system stream', () => {
    const { dir, file } = copy('system');
    const [first] = chain(file, 'system');
    tamper(file, "UPDATE audit_events SET outcome = 'success' WHERE tenant_id = 'system' AND id = ?", first!.id);
    const run = svc(dir, 'audit', 'verify');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`system stream: FAILED at chain_seq 1: event ${first!.id} is altered`);
  });
});
