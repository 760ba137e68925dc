import { type Handler, makeTestCertificates, startTestServer, type TestCertificates, type TestServer } from '@svc/outbound/testing';
import { applicationKey, harness, type Harness } from './harness';

/** Real local HTTPS destinations for proxy tests: one test CA per file, every server closed after each test. */
export function useTestDestinations(): { readonly https: (handler: Handler) => Promise<TestServer>; readonly certs: () => TestCertificates } {
  let certs: TestCertificates | undefined;
  const servers: TestServer[] = [];
  beforeAll(() => {
    certs = makeTestCertificates();
  });
  afterAll(() => certs?.dispose());
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return {
    certs: () => certs!,
    https: async (handler) => {
      const server = await startTestServer(handler, certs!);
      servers.push(server);
      return server;
    },
  };
}

/**
 * The harness with `dest` allowed (SVC_OUTBOUND_ALLOW) and the test CA trusted (SVC_OUTBOUND_CA), and a backend key
 * that may create, reveal and proxy tokens.
 */
export async function proxyHarness(dest: TestServer, certs: TestCertificates, env: Record<string, string> = {}): Promise<{ h: Harness; backend: string }> {
  const h = await harness({ SVC_OUTBOUND_ALLOW: `127.0.0.1:${dest.port}`, SVC_OUTBOUND_CA: certs.caFile, ...env });
  const backend = await applicationKey(h, { name: 'backend', type: 'private', permissions: ['token:create', 'token:read', 'token:use', 'proxy:invoke'] });
  return { h, backend };
}
