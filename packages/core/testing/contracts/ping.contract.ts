import type { Store } from '../../src/shared/store';
import { useStore } from './use-store';

/** The readiness probe: a store that answers reads and writes answers a ping, also while writes are under way. */
export function describePingContract(open: () => Promise<Store>): void {
  describe('ping contract', () => {
    const store = useStore(open);

    it('answers a ping, and many at once', async () => {
      await expect(store().ping()).resolves.toBeUndefined();
      await expect(Promise.all(Array.from({ length: 20 }, () => store().ping()))).resolves.toHaveLength(20);
    });
  });
}
