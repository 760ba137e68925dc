import { gateLookups } from './lookup-gate';
import { type AddressLookup, systemLookup } from './system-lookup';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import {
  OutboundError,
  type OutboundHttp,
  type OutboundPolicy,
  type OutboundRequest,
  type OutboundResponse,
  type OutboundStream,
  type OutboundTarget,
} from '@svc/core';
import { Agent, buildConnector, type Dispatcher, errors } from 'undici';

export interface UndiciOutboundHttpOptions {
  readonly policy: OutboundPolicy;
  /** PEM certificates (SVC_OUTBOUND_CA) trusted besides the system roots: a test CA, a private deployment's CA. */
  readonly extraCa?: string | undefined;
  /** Replaces the system resolver (tests resolve names to 127.0.0.1 without touching DNS). */
  readonly resolve?: AddressLookup | undefined;
  /** At most this many lookups at a time (see gateLookups); unbounded by default. */
  readonly maxConcurrentLookups?: number | undefined;
  /** Largest response body read, in bytes; a larger one is `response_too_large`. Default 10 MiB. */
  readonly maxResponseBytes?: number | undefined;
  /** Milliseconds to open a connection (TCP and TLS), within each request's own timeout. Default 10 s. */
  readonly connectTimeoutMs?: number | undefined;
}


/** The connector's refusal, told apart from socket errors by its class. */
class RefusedConnection extends Error {}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * OutboundHttp over one undici Agent (a pool of keep-alive connections per origin). The Agent's connector resolves
 * each host itself, checks every address with the policy and connects to a checked address: a name that resolved to
 * a public address for the URL check and to 127.0.0.1 a moment later still never reaches 127.0.0.1. TLS verifies the
 * certificate against the host name of the URL (SNI too), not the address.
 */
export class UndiciOutboundHttp implements OutboundHttp {
  private readonly agent: Agent;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: UndiciOutboundHttpOptions) {
    this.maxResponseBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
    const lookup = options.resolve ?? systemLookup;
    const resolve = options.maxConcurrentLookups === undefined ? lookup : gateLookups(lookup, options.maxConcurrentLookups);
    const connect = buildConnector({
      timeout: options.connectTimeoutMs ?? 10_000,
      // Made once: given as `ca`, the 140-odd roots and the extra CA were parsed again for every new connection.
      ...(options.extraCa ? { secureContext: createSecureContext({ ca: [...rootCertificates, options.extraCa] }) } : {}),
    });
    this.agent = new Agent({
      connect: (opts, callback) => {
        this.resolveChecked(opts.protocol, opts.hostname, opts.port, resolve).then(
          (addresses) => this.connectFirst(connect, opts, addresses, callback),
          (error: unknown) => callback(error as Error, null),
        );
      },
    });
  }

  async send(request: OutboundRequest): Promise<OutboundResponse> {
    return (await this.underDeadline(request, (url, signal) => this.exchange(url, request, signal))).value;
  }

  async open(request: OutboundRequest & { readonly maxBodyBytes: number }): Promise<OutboundStream> {
    const { value: response, controller } = await this.underDeadline(request, (url, signal) => this.agent.request(requestOptions(url, request, signal)));
    const limit = request.maxBodyBytes;
    // An answer to HEAD has no body, whatever length it states (the length of what a GET would bring). (undici reads
    // a 204 or 304 stating a length as a body cut short, so those are not excepted here.)
    if (request.method.toUpperCase() !== 'HEAD' && Number(response.headers['content-length']) > limit) {
      response.body.destroy();
      throw new OutboundError('response_too_large', `The answer is larger than ${limit} bytes.`);
    }
    const source = response.body;
    // The caller may still go away while the body arrives (or while the proxy reads it whole for a mask).
    const onAbort = (): void => {
      controller.abort();
      source.destroy();
    };
    const signal = request.signal;
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const release = (): void => signal?.removeEventListener('abort', onAbort);
    const toError = (error: unknown) => this.outboundError(error, false);
    async function* body(): AsyncGenerator<Uint8Array> {
      let size = 0;
      try {
        for await (const chunk of source) {
          size += (chunk as Buffer).length;
          if (size > limit) throw new OutboundError('response_too_large', `The answer is larger than ${limit} bytes.`);
          yield chunk as Buffer;
        }
      } catch (error) {
        throw toError(error);
      } finally {
        release();
        source.destroy();
      }
    }
    return {
      status: response.statusCode,
      headers: response.headers as OutboundStream['headers'],
      body: body(),
      cancel: () => {
        release();
        controller.abort();
        source.destroy();
      },
    };
  }

  /**
   * Runs `work` on a URL the policy passed, within the request's deadline: undici does not abort a request that is
   * still connecting, so the deadline races the exchange (and aborts it through the signal when it wins).
   */
  private async underDeadline<T>(
    request: OutboundRequest,
    work: (url: URL, signal: AbortSignal) => Promise<T>,
  ): Promise<{ readonly value: T; readonly controller: AbortController }> {
    const decision = this.options.policy.checkUrl(request.url);
    if (!decision.allowed) throw new OutboundError('refused', `The destination ${decision.reason}.`);
    const controller = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
        reject(new OutboundError('timeout', 'The destination did not answer in time.'));
      }, request.timeoutMs);
      // The caller's own abort ends the exchange as the deadline would: its socket is not held until the timeout.
      onAbort = () => {
        controller.abort();
        reject(new OutboundError('unreachable', 'The call was abandoned by its caller.'));
      };
      if (request.signal?.aborted) onAbort();
      else request.signal?.addEventListener('abort', onAbort, { once: true });
    });
    const exchange = work(decision.value.url, controller.signal);
    exchange.catch(() => undefined);
    try {
      return { value: await Promise.race([exchange, deadline]), controller };
    } catch (error) {
      throw this.outboundError(error, timedOut);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort!);
    }
  }

  private async exchange(url: URL, request: OutboundRequest, signal: AbortSignal): Promise<OutboundResponse> {
    const response = await this.agent.request(requestOptions(url, request, signal));
    if (request.discardBody) {
      // Up to 64 KiB is read so the connection can be reused; past that it is closed.
      await response.body.dump({ limit: 64 * 1024 });
      return { status: response.statusCode, headers: response.headers as OutboundResponse['headers'], body: new Uint8Array() };
    }
    const tooLarge = () => {
      response.body.destroy();
      return new OutboundError('response_too_large', `The answer is larger than ${this.maxResponseBytes} bytes.`);
    };
    if (Number(response.headers['content-length']) > this.maxResponseBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > this.maxResponseBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
    return { status: response.statusCode, headers: response.headers as OutboundResponse['headers'], body: new Uint8Array(Buffer.concat(chunks)) };
  }

  /** Cuts pooled connections and requests in flight (a webhook delivery cut here is retried by its outbox). */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  /** The addresses of the host, each passed by the policy; a refusal if any is not. */
  private async resolveChecked(protocol: string, hostname: string, port: string, resolve: AddressLookup): Promise<readonly string[]> {
    const bracketed = isIP(hostname) === 6 ? `[${hostname}]` : hostname;
    const decision = this.options.policy.checkUrl(`${protocol}//${bracketed}${port ? `:${port}` : ''}/`);
    if (!decision.allowed) throw new RefusedConnection(`The destination ${decision.reason}.`);
    const target: OutboundTarget = decision.value;
    const addresses = isIP(hostname) ? [hostname] : await resolve(hostname);
    if (addresses.length === 0) throw new Error('the host name has no address');
    for (const address of addresses) {
      const checked = this.options.policy.checkAddress(target, address);
      if (!checked.allowed) throw new RefusedConnection(`The destination ${checked.reason}.`);
    }
    return addresses;
  }

  /** Tries the checked addresses in order; the host header, SNI and certificate check keep the URL's host name. */
  private connectFirst(
    connect: buildConnector.connector,
    opts: buildConnector.Options,
    addresses: readonly string[],
    callback: buildConnector.Callback,
  ): void {
    const [address, ...rest] = addresses;
    connect({ ...opts, hostname: address! }, (error, socket) => {
      if (error && rest.length > 0 && !TIMEOUT_CODES.has((error as { code?: string }).code ?? '')) {
        this.connectFirst(connect, opts, rest, callback);
      } else {
        callback(error, socket as never);
      }
    });
  }

  private outboundError(error: unknown, timedOut: boolean): OutboundError {
    if (error instanceof OutboundError) return error;
    if (causes(error).some((e) => e instanceof RefusedConnection)) {
      return new OutboundError('refused', causes(error).find((e) => e instanceof RefusedConnection)!.message);
    }
    if (timedOut || causes(error).some((e) => TIMEOUT_CODES.has((e as { code?: string }).code ?? ''))) {
      return new OutboundError('timeout', 'The destination did not answer in time.');
    }
    if (error instanceof errors.ResponseExceededMaxSizeError) {
      return new OutboundError('response_too_large', `The answer is larger than ${this.maxResponseBytes} bytes.`);
    }
    return new OutboundError('unreachable', `The destination could not be reached (${describe(error)}).`);
  }
}

/** One request to undici: the whole exchange bounded by the request's timeout, the body's chunks too (a stall cuts it). */
function requestOptions(url: URL, request: OutboundRequest, signal: AbortSignal): Dispatcher.RequestOptions {
  return {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: request.method as Dispatcher.HttpMethod,
    headers: request.headers as Record<string, string | string[]>,
    body: request.body,
    signal,
    headersTimeout: request.timeoutMs,
    bodyTimeout: request.timeoutMs,
  };
}

function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 5; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** A code or class such as ECONNREFUSED or DEPTH_ZERO_SELF_SIGNED_CERT: never a resolved address or request data. */
function describe(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown };
  return typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'error';
}
