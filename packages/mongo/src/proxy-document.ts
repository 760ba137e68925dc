import type { TenantCountDocument } from './tenant-counters';
import type { Binary, UpdateFilter } from 'mongodb';
import type { Proxy, ProxyTransform } from '@svc/core';
import { compact, fromBinary, optional, setOrUnset, toBinary } from './documents';

/**
 * A pre-configured proxy; `_id` is its id. The configuration is only ever stored sealed (AES-256-GCM under the
 * tenant's key) and the key only as its SHA-256 digest, unique across tenants. Transforms are kept as JSON text: a
 * tokenize transform's token template is the caller's object, whose field names MongoDB might refuse (`$type`, `a.b`).
 * `name_lower` is the name as JavaScript lower-cases it, for the case-insensitive name filter.
 */
export interface ProxyDocument {
  _id: string;
  tenant_id: string;
  name: string;
  name_lower: string;
  destination_url: string;
  request_transforms: string;
  response_transforms: string;
  application_id?: string;
  sealed_configuration: Binary;
  require_auth: boolean;
  timeout_seconds?: number;
  disable_detokenization: boolean;
  key_hash: string;
  version: number;
  created_by: string;
  created_at: Date;
  modified_by?: string;
  modified_at?: Date;
}

/** How many proxies a tenant holds; `_id` is the tenant id. Kept by the same transactions that insert and delete. */
export type ProxyCountDocument = TenantCountDocument;

/** The fields an update replaces: never the key hash nor the creation fields (undefined ones are removed). */
const mutable = (p: Proxy) => ({
  name: p.name,
  name_lower: p.name.toLowerCase(),
  destination_url: p.destinationUrl,
  request_transforms: JSON.stringify(p.requestTransforms),
  response_transforms: JSON.stringify(p.responseTransforms),
  application_id: p.applicationId,
  sealed_configuration: toBinary(p.sealedConfiguration),
  require_auth: p.requireAuth,
  timeout_seconds: p.timeoutSeconds,
  disable_detokenization: p.disableDetokenization,
  version: p.version,
  modified_by: p.modifiedBy,
  modified_at: p.modifiedAt,
});

export const toProxyDocument = (p: Proxy): ProxyDocument =>
  compact<ProxyDocument>({
    _id: p.id,
    tenant_id: p.tenantId,
    ...mutable(p),
    key_hash: p.keyHash,
    created_by: p.createdBy,
    created_at: p.createdAt,
  });

export const fromProxyDocument = (d: ProxyDocument): Proxy => ({
  id: d._id,
  tenantId: d.tenant_id,
  name: d.name,
  destinationUrl: d.destination_url,
  requestTransforms: JSON.parse(d.request_transforms) as ProxyTransform[],
  responseTransforms: JSON.parse(d.response_transforms) as ProxyTransform[],
  applicationId: optional(d.application_id),
  sealedConfiguration: fromBinary(d.sealed_configuration),
  requireAuth: d.require_auth,
  timeoutSeconds: optional(d.timeout_seconds),
  disableDetokenization: d.disable_detokenization,
  keyHash: d.key_hash,
  version: d.version,
  createdBy: d.created_by,
  createdAt: d.created_at,
  modifiedBy: optional(d.modified_by),
  modifiedAt: optional(d.modified_at),
});

/** The update of {@link MongoProxyRepository.update}: every field but the key hash and the creation fields. */
export const proxyUpdate = (p: Proxy): UpdateFilter<ProxyDocument> => setOrUnset<ProxyDocument>(mutable(p));

/** `text` with every character a regular expression treats specially escaped, so it matches itself only. */
export const literalPattern = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * The name filter: names whose lower case contains `text`'s lower case, the text matched literally (no character of
 * it is a wildcard or a regular-expression operator).
 */
export const nameContains = (text: string): { name_lower: { $regex: string } } => ({ name_lower: { $regex: literalPattern(text.toLowerCase()) } });
