import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboundPolicy } from '@svc/core';
import { loadConfig } from '../src/config/load-config';

/** SVC_OUTBOUND_ALLOW and SVC_OUTBOUND_CA: read and checked at start-up, a bad value naming its variable. */
describe('outbound configuration', () => {
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-outbound-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfig({ SVC_STORE: 'memory', ...env });

  it('allows nothing private by default, and what SVC_OUTBOUND_ALLOW lists when set', () => {
    const closed = new OutboundPolicy(load({}).outboundAllow);
    expect(closed.checkUrl('http://127.0.0.1:8443/hook').allowed).toBe(false);
    const open = new OutboundPolicy(load({ SVC_OUTBOUND_ALLOW: '127.0.0.1:8443, *.internal.example' }).outboundAllow);
    expect(open.checkUrl('http://127.0.0.1:8443/hook').allowed).toBe(true);
    expect(open.checkUrl('http://127.0.0.1:8444/hook').allowed).toBe(false);
    expect(open.checkUrl('https://hooks.internal.example/x').allowed).toBe(true);
  });

  it.each([['http://x'], ['host:port'], ['a b'], ['*']])('refuses SVC_OUTBOUND_ALLOW=%s, naming it', (value) => {
    expect(() => load({ SVC_OUTBOUND_ALLOW: value })).toThrow(/^SVC_OUTBOUND_ALLOW: /);
  });

  it('reads the CA certificates of SVC_OUTBOUND_CA, and refuses a missing file, one without a certificate, or a broken one', () => {
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.pem'), '-days', '1', '-subj', '/CN=svc test CA']);
    expect(made.status).toBe(0);
    expect(load({ SVC_OUTBOUND_CA: join(dir, 'ca.pem') }).outboundCaPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(load({}).outboundCaPem).toBeUndefined();
    expect(() => load({ SVC_OUTBOUND_CA: join(dir, 'missing.pem') })).toThrow(/^SVC_OUTBOUND_CA: cannot read/);
    writeFileSync(join(dir, 'empty.pem'), 'not a certificate');
    expect(() => load({ SVC_OUTBOUND_CA: join(dir, 'empty.pem') })).toThrow(/^SVC_OUTBOUND_CA: .* holds no PEM certificate/);
    writeFileSync(join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(() => load({ SVC_OUTBOUND_CA: join(dir, 'broken.pem') })).toThrow(/^SVC_OUTBOUND_CA: .* does not parse/);
  });
});
