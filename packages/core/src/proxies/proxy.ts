import type { WriteEffects } from '../audit/write-effects';
import type { Page, PageRequest } from '../shared/pagination';

/** Limits of docs/proxy.md. */
export const MAX_PROXY_NAME = 200;
export const MAX_PROXY_URL = 2_000;
export const MAX_PROXIES_PER_TENANT = 100;
export const MAX_PROXY_TRANSFORMS = 20;
export const MAX_PROXY_CONFIGURATION_ENTRIES = 50;
export const MAX_PROXY_CONFIGURATION_VALUE = 4_000;
/** The longest a pre-configured proxy may wait for its destination, in seconds. */
export const MAX_PROXY_TIMEOUT_SECONDS = 120;

/** The prefix of a proxy key, so that one found in a log or a repository is recognisable. */
export const PROXY_KEY_PREFIX = 'key_prx_';

/**
 * A declarative change to a request or an answer passing through a proxy (beyond.md §7); svc never runs user code.
 * - `tokenize` (requests): each value of the JSON body that `matcher` (a JSONPath) selects becomes the id of a new
 *   token created by the proxy's application from `token` (a create request without data).
 * - `detokenize` (requests): detokenization expressions are replaced by token values (the default on requests).
 * - `mask` (answers): what `matcher` selects is replaced by `replacement`: with `matcher: 'regex'`, each match of the
 *   regular expression `expression` in the body; with a JSONPath, each selected value of a JSON body, or only the
 *   matches of `expression` within it when one is given.
 * - `append_header` (requests): sets the header `name` to `value`, an expression over `configuration`.
 */
export type ProxyTransform =
  | { readonly type: 'tokenize'; readonly matcher: string; readonly token: Readonly<Record<string, unknown>> }
  | { readonly type: 'detokenize' }
  | { readonly type: 'mask'; readonly matcher: string; readonly expression?: string | undefined; readonly replacement: string }
  | { readonly type: 'append_header'; readonly name: string; readonly value: string };

export type ProxyTransformType = ProxyTransform['type'];

/**
 * A pre-configured proxy. Its key is stored as a SHA-256 digest only (shown once, at create). `sealedConfiguration`
 * is the configuration (destination credentials, as a JSON object of strings) sealed with the tenant's keys under
 * `svc/proxy-configuration/v1`; the store never holds it in the clear. `version` counts changes: an update applies
 * only over the version it read.
 */
export interface Proxy {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly destinationUrl: string;
  readonly requestTransforms: readonly ProxyTransform[];
  readonly responseTransforms: readonly ProxyTransform[];
  /** The application whose access the proxy's own token work runs under (tokenize; detokenize without auth). */
  readonly applicationId?: string | undefined;
  readonly sealedConfiguration: Uint8Array;
  readonly requireAuth: boolean;
  /** Seconds to wait for the destination's answer; the server's SVC_PROXY_TIMEOUT when absent. */
  readonly timeoutSeconds?: number | undefined;
  readonly disableDetokenization: boolean;
  readonly keyHash: string;
  readonly version: number;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly modifiedBy?: string | undefined;
  readonly modifiedAt?: Date | undefined;
}

/** What {@link ProxyRepository.create} did: stored the proxy, or refused it (the tenant holds `limit`). */
export type CreateProxyOutcome = 'created' | 'limit';

/** What {@link ProxyRepository.update} did: applied; refused because the stored version moved on; or found nothing. */
export type UpdateProxyOutcome = 'updated' | 'conflict' | 'absent';

export interface ProxyListFilter {
  /** Only these ids (lower case). */
  readonly ids?: readonly string[] | undefined;
  /** Only proxies whose name contains this text, case-insensitively; `%` and `_` are plain characters. */
  readonly name?: string | undefined;
}

/** Stores proxies; every read and write by id is scoped by tenant, and another tenant's proxy is absent. */
export interface ProxyRepository {
  /**
   * Stores a new proxy unless its tenant already holds `limit`. Atomic: concurrent creates, from this process or
   * another, never leave a tenant with more than `limit`. A key hash is unique across tenants: a create whose `keyHash`
   * is already stored, in any tenant, or whose `id` its tenant already holds, throws and stores nothing (nor its effects).
   */
  create(proxy: Proxy, limit: number, effects?: WriteEffects): Promise<CreateProxyOutcome>;
  findById(tenantId: string, id: string): Promise<Proxy | undefined>;
  /** The proxy whose key hashes to `keyHash`, whatever its tenant (the key names the tenant). */
  findByKeyHash(keyHash: string): Promise<Proxy | undefined>;
  /** Ordered by created_at descending, then id descending. */
  list(tenantId: string, filter: ProxyListFilter, page: PageRequest): Promise<Page<Proxy>>;
  /**
   * Replaces a stored proxy's fields except its key hash and creation fields, when the stored version is
   * `proxy.version - 1` (compare-and-set: two concurrent updates never both apply over the same version).
   */
  update(proxy: Proxy, effects?: WriteEffects): Promise<UpdateProxyOutcome>;
  /** False when there was nothing to delete. */
  delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean>;
}
