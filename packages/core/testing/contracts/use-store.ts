import type { Store } from '../../src/shared/store';

/** Gives each test a fresh store and closes it afterwards. */
export function useStore(open: () => Promise<Store>): () => Store {
  let store: Store | undefined;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });
  return () => {
    if (!store) throw new Error('store is not open');
    return store;
  };
}
