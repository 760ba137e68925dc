import type { ApplicationKey } from '@svc/core';
import { iso } from './pagination';

/**
 * An application key as the API shows it (Basis Theory's `ApplicationKey`); `key` only in the create answer, the one
 * time the plaintext exists. `version` is the key format's version: every key svc issues is of format 1.
 */
export function presentApplicationKey(key: ApplicationKey, plaintext?: string) {
  return {
    id: key.id,
    key: plaintext,
    version: '1',
    created_by: key.createdBy,
    created_at: iso(key.createdAt),
  };
}
