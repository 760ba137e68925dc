import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** PEM of a CA made for this run, and its path (what SVC_OUTBOUND_CA names). */
  readonly caPem: string;
  readonly caFile: string;
  /** A certificate the CA signed for 127.0.0.1, localhost and svc-test.example, with its key. */
  readonly cert: string;
  readonly key: string;
  readonly dispose: () => void;
}

/** Makes a throwaway CA and server certificate with openssl; nothing is downloaded. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'svc-outbound-ca-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=svc test CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=svc-test.example');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:svc-test.example\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'ext.cnf');
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return {
    caPem: read('ca.pem'),
    caFile: join(dir, 'ca.pem'),
    cert: read('server.pem'),
    key: read('server.key'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
