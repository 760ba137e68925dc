import type { Actor } from '../../src/auth/actor';
import { Keyring } from '../../src/crypto/keyring';
import { ExpressionEngine } from '../../src/expressions';
import { CryptoRandomSource } from '../../src/shared/random';
import type { Store } from '../../src/shared/store';
import { CreateToken } from '../../src/tokens/create-token';
import { GetToken } from '../../src/tokens/manage-tokens';
import { UpdateToken, type UpdateTokenInput } from '../../src/tokens/update-token';
import { anActor } from '../builders';
import { FixedClock } from '../fixed-clock';
import { holdReads } from '../hold-reads';
import { SequentialIds } from '../sequential-ids';

const T1 = '11111111-0000-4000-8000-000000000001';
const KEYS = Array.from({ length: 10 }, (_, i) => `k${i}`);
const ALL_KEYS = Object.fromEntries(KEYS.map((key) => [key, key]));

/**
 * The real UpdateToken over the store under test. Every PATCH in a race reads the same version (the reads are held
 * until all have read), so all but one lose the store's compare-and-set and must retry on the fresh token.
 */
export function describeTokenUpdateContract(store: () => Store): void {
  describe('concurrent updates through UpdateToken', () => {
    const actor: Actor = anActor(T1, ['token:create', 'token:read', 'token:update', 'token:use'], 'private');

    function useCases(): { create: CreateToken; update: UpdateToken; get: GetToken } {
      const clock = new FixedClock('2026-01-01T00:00:00.000Z');
      const random = new CryptoRandomSource();
      const deps = {
        tokens: store().tokens,
        keyring: new Keyring({ dataKeys: store().dataKeys, random, clock, masterKey: Buffer.alloc(32, 7) }),
        expressions: new ExpressionEngine({ random }),
        clock,
        ids: new SequentialIds(),
        policy: { cvcRetentionMs: 3_600_000 },
      };
      return { create: new CreateToken(deps), update: new UpdateToken(deps), get: new GetToken(deps) };
    }

    async function race(update: UpdateToken, id: string, patches: readonly UpdateTokenInput[]): Promise<void> {
      holdReads(store().tokens, patches.length);
      await Promise.all(patches.map((patch) => update.execute(actor, id, patch)));
    }

    it('keeps every key of ten concurrent metadata patches and of ten concurrent data patches', async () => {
      const { create, update, get } = useCases();
      const { id } = (await create.execute(actor, { type: 'token', data: { start: 'x' }, metadata: { start: 'x' } })).token;
      await race(update, id, KEYS.map((key) => ({ metadata: { [key]: key } })));
      await race(update, id, KEYS.map((key) => ({ data: { [key]: key } })));
      const after = await get.execute(actor, id);
      expect(after.token.metadata).toEqual({ start: 'x', ...ALL_KEYS });
      expect(after.data).toEqual({ start: 'x', ...ALL_KEYS });
      expect((await store().tokens.findById(T1, id, new Date('2026-01-01T00:00:00.000Z')))?.version).toBe(2 * KEYS.length);
    });

    it('keeps both a containers patch and a metadata patch made at once', async () => {
      const { create, update, get } = useCases();
      const { id } = (await create.execute(actor, { type: 'token', data: 'x' })).token;
      await race(update, id, [{ containers: ['/general/low/'] }, { metadata: { a: '1' } }]);
      const after = await get.execute(actor, id);
      expect(after.token.containers).toEqual(['/general/low/']);
      expect(after.token.metadata).toEqual({ a: '1' });
    });
  });
}
