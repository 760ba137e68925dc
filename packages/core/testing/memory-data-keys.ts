import type { DataKeyRepository, WrappedDataKey } from '../src/crypto/data-key';

/** A minimal in-memory DataKeyRepository for core's own tests (adapters have their own). */
export function createMemoryStoreForCore(): DataKeyRepository {
  const keys = new Map<string, WrappedDataKey>();
  return {
    find: async (tenantId) => keys.get(tenantId),
    createIfAbsent: async (key) => {
      if (!keys.has(key.tenantId)) keys.set(key.tenantId, key);
      return keys.get(key.tenantId)!;
    },
    all: async () => [...keys.values()],
    replace: async (key) => {
      keys.set(key.tenantId, key);
    },
  };
}
