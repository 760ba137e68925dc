/**
 * The one way svc sends HTTP requests to other hosts (webhook deliveries, the proxy). Every request passes the
 * {@link OutboundPolicy}; redirects are never followed (a 3xx is an answer like any other).
 *
 * `send` buffers the answer, which suits webhooks; `open` hands the answer's body over as it arrives, which the proxy
 * streams back to its caller (beyond.md §7). Both run under the same policy, timeouts and connection pool.
 */
export interface OutboundHttp {
  /** Resolves with the destination's answer, whatever its status; rejects with an {@link OutboundError}. */
  send(request: OutboundRequest): Promise<OutboundResponse>;
  /**
   * Resolves once the destination's status and headers arrive (within `timeoutMs`), with its body still to read;
   * rejects with an {@link OutboundError}. Reading the body throws an OutboundError when it passes
   * `maxBodyBytes` (`response_too_large`), stalls for `timeoutMs` (`timeout`) or is cut (`unreachable`).
   */
  open(request: OutboundRequest & { readonly maxBodyBytes: number }): Promise<OutboundStream>;
  /** Closes pooled connections; later sends fail. */
  close(): Promise<void>;
}

export type OutboundHeaders = Readonly<Record<string, string | readonly string[]>>;

export interface OutboundRequest {
  readonly method: string;
  /** Absolute `https:` URL (`http:` only for SVC_OUTBOUND_ALLOW hosts). May hold secrets in its query: never log it. */
  readonly url: string;
  readonly headers: OutboundHeaders;
  /** May hold token data (the proxy): never logged. */
  readonly body?: Uint8Array | string | undefined;
  /** Milliseconds for the whole exchange: resolving, connecting, sending and reading the answer. */
  readonly timeoutMs: number;
  /**
   * The answer's body is not wanted (a webhook delivery needs only the status): it is discarded unread, whatever its
   * size, and `body` is empty. Default false.
   */
  readonly discardBody?: boolean | undefined;
  /**
   * Ends the exchange at once when it aborts, whether connecting, waiting for the answer or reading its body: the
   * caller went away, and its socket to the destination must not outlive it until the timeout. It fails as
   * `unreachable`.
   */
  readonly signal?: AbortSignal | undefined;
}

export interface OutboundResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: OutboundHeaders;
  readonly body: Uint8Array;
}

/** An answer whose body is still arriving. */
export interface OutboundStream {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: OutboundHeaders;
  /** Read once. */
  readonly body: AsyncIterable<Uint8Array>;
  /** Stops reading and releases the connection (when the caller went away, or the body is not wanted). */
  cancel(): void;
}

/**
 * Why a request got no answer:
 * - `refused`: the outbound policy refused the URL or a resolved address; nothing was sent, no socket opened.
 * - `timeout`: no complete answer within `timeoutMs` (or the connect timeout).
 * - `unreachable`: the name does not resolve, the connection failed or was cut, or TLS failed (untrusted certificate).
 * - `response_too_large`: the answer's body passed the size bound; it was cut off.
 */
export type OutboundErrorKind = 'refused' | 'timeout' | 'unreachable' | 'response_too_large';

/** A request that got no usable answer. The message names no resolved address and no request data. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}
