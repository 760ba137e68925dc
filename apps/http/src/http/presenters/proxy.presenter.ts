import type { ProxyTransform, ProxyView } from '@svc/core';
import { iso } from './pagination';

function presentTransform(transform: ProxyTransform) {
  switch (transform.type) {
    case 'tokenize':
      return { type: transform.type, matcher: transform.matcher, token: transform.token };
    case 'detokenize':
      return { type: transform.type };
    case 'mask':
      return { type: transform.type, matcher: transform.matcher, expression: transform.expression, replacement: transform.replacement };
    case 'append_header':
      return { type: transform.type, name: transform.name, value: transform.value };
  }
}

/**
 * A proxy as the API shows it: never its key, except `key` on the create answer, the one time it is shown. The
 * configuration (stored sealed) is shown to management keys that may read proxies, as Basis Theory shows it.
 */
export function presentProxy({ proxy, configuration, key }: ProxyView) {
  return {
    id: proxy.id,
    key,
    tenant_id: proxy.tenantId,
    name: proxy.name,
    destination_url: proxy.destinationUrl,
    request_transforms: proxy.requestTransforms.map(presentTransform),
    response_transforms: proxy.responseTransforms.map(presentTransform),
    application_id: proxy.applicationId,
    configuration,
    require_auth: proxy.requireAuth,
    timeout: proxy.timeoutSeconds,
    disable_detokenization: proxy.disableDetokenization,
    created_by: proxy.createdBy,
    created_at: iso(proxy.createdAt),
    modified_by: proxy.modifiedBy,
    modified_at: iso(proxy.modifiedAt),
  };
}
