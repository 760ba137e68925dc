import { request } from 'node:https';
import { join } from 'node:path';
import { makeTestCertificates } from '@svc/outbound/testing';
import { freePort, startNode } from './processes';
import type { ScenarioContext } from './scenarios';

const CARD = '4242424242424242';

/** The proxy scenario's local HTTPS destination (destination-server.ts), with the CA its certificate chains to. */
export interface Destination {
  readonly port: number;
  /** `https://127.0.0.1:<port>/charge`: where both the proxy and the direct call send the charge. */
  readonly chargeUrl: string;
  readonly caPem: string;
  /** What the vault under test is started with: the destination allowed although private, its CA trusted. */
  readonly vaultEnv: { readonly SVC_OUTBOUND_ALLOW: string; readonly SVC_OUTBOUND_CA: string };
  stop(): Promise<void>;
}

/** Makes a CA and a certificate for 127.0.0.1 with openssl (nothing downloaded) and starts the destination on them. */
export async function startDestination(): Promise<Destination> {
  const certs = makeTestCertificates();
  try {
    const port = await freePort();
    const env = { PATH: process.env.PATH, PORT: String(port), DEST_CERT: certs.cert, DEST_KEY: certs.key };
    const child = await startNode(join(__dirname, 'destination-server.js'), [], env, `https://127.0.0.1:${port}`, (out) => out.includes('listening'));
    return {
      port,
      chargeUrl: `https://127.0.0.1:${port}/charge`,
      caPem: certs.caPem,
      vaultEnv: { SVC_OUTBOUND_ALLOW: `127.0.0.1:${port}`, SVC_OUTBOUND_CA: certs.caFile },
      async stop() {
        await child.stop();
        certs.dispose();
      },
    };
  } catch (error) {
    certs.dispose();
    throw error;
  }
}

/** One charge sent two ways with the same connections and duration: through `POST /proxy`, and straight to the destination. */
export interface ProxyScenario {
  readonly name: string;
  readonly proxied: { readonly url: string; readonly headers: Record<string, string>; readonly body: string };
  readonly direct: { readonly url: string; readonly headers: Record<string, string>; readonly body: string };
}

/**
 * A private application with token:create, token:read, token:use and proxy:invoke, one card_number token, and the
 * charge `{ "amount": 100, "card": "{{ <token id> }}" }` for `POST /proxy` (SVC-PROXY-URL naming the destination);
 * the direct call sends the same charge with the card number itself, as a caller without the vault would. Both are
 * tried once before measuring: the proxied charge must reach the destination with the token detokenized, and the
 * direct one must verify the destination's certificate against the run's CA.
 */
export async function prepareProxyScenario(context: ScenarioContext, destination: Destination): Promise<ProxyScenario> {
  const key = await context.createApplication({
    name: 'bench proxy backend',
    type: 'private',
    permissions: ['token:create', 'token:read', 'token:use', 'proxy:invoke'],
  });
  const created = await fetch(`${context.url}/tokens`, {
    method: 'POST',
    headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'card_number', data: CARD }),
  });
  if (created.status !== 201) throw new Error(`creating the proxy bench token failed: ${created.status}`);
  const { id } = (await created.json()) as { id: string };
  const scenario: ProxyScenario = {
    name: 'POST /proxy (1 token into JSON) vs POST /charge direct',
    proxied: {
      url: `${context.url}/proxy`,
      headers: { 'SVC-API-KEY': key, 'SVC-PROXY-URL': destination.chargeUrl, 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: 100, card: `{{ ${id} }}` }),
    },
    direct: {
      url: destination.chargeUrl,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: 100, card: CARD }),
    },
  };
  const proxied = await fetch(scenario.proxied.url, { method: 'POST', headers: scenario.proxied.headers, body: scenario.proxied.body });
  const proxiedAnswer = await proxied.text();
  if (proxied.status !== 200 || (JSON.parse(proxiedAnswer) as { last4?: string }).last4 !== CARD.slice(-4)) {
    throw new Error(`the proxied charge failed: ${proxied.status} ${proxiedAnswer}`);
  }
  const direct = await verifiedPost(scenario.direct.url, scenario.direct.body, destination.caPem);
  if (direct.status !== 200) throw new Error(`the direct charge failed: ${direct.status} ${direct.body}`);
  return scenario;
}

/** A POST over HTTPS trusting `ca` (and verifying the certificate against it), for the check before measuring. */
function verifiedPost(url: string, body: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
