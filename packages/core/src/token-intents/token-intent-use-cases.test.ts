import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import { FixedClock } from '../../testing/fixed-clock';
import { SequentialIds } from '../../testing/sequential-ids';
import { anActor } from '../../testing/builders';
import { Keyring } from '../crypto/keyring';
import { ExpressionEngine } from '../expressions';
import { CryptoRandomSource } from '../shared/random';
import type { StoredTokenIntent, TokenIntentRepository } from './token-intent';
import { openIntentData } from './token-intent-sealing';
import { CreateTokenIntent, TOKEN_INTENT_LIFETIME_MS } from './token-intent-use-cases';

describe('CreateTokenIntent', () => {
  it("never keeps a card's cvc: no token made of the intent gets it, and the intent lives longer than a cvc may", async () => {
    const clock = new FixedClock('2026-01-01T00:00:00.000Z');
    const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random: new CryptoRandomSource(), clock, masterKey: Buffer.alloc(32, 1) });
    const kept: StoredTokenIntent[] = [];
    const intents: TokenIntentRepository = {
      create: async (intent) => void kept.push(intent),
      findById: async () => undefined,
      take: async () => undefined,
      deleteExpired: async () => 0,
    };
    const create = new CreateTokenIntent({
      intents,
      keyring,
      expressions: new ExpressionEngine({ random: new CryptoRandomSource() }),
      clock,
      ids: new SequentialIds(),
      lifetimeMs: TOKEN_INTENT_LIFETIME_MS,
    });
    const card = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '987' };
    const view = await create.execute(anActor('t1', ['token:intent:create'], 'public'), { type: 'card', data: card });
    expect(view.card).toMatchObject({ bin: '424242', last4: '4242' });
    const sealed = openIntentData(await keyring.forTenant('t1'), kept[0]!.id, kept[0]!.sealedData);
    expect(sealed).toEqual({ number: '4242424242424242', expiration_month: 12, expiration_year: 2030 });
  });
});
