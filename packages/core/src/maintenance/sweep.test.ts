import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import { FixedClock } from '../../testing/fixed-clock';
import { aStoredToken } from '../../testing/builders';
import type { ApplicationRepository } from '../applications/application.repository';
import { Keyring } from '../crypto/keyring';
import { CryptoRandomSource } from '../shared/random';
import type { StoredToken } from '../tokens/token';
import type { TokenRepository } from '../tokens/token.repository';
import { Sweep } from './sweep';
import type { SessionRepository } from '../sessions/session';
import type { TokenIntentRepository } from '../token-intents/token-intent';
import type { IdempotencyRepository } from '../idempotency/idempotency';
import { RecordingMailer } from '../../testing/recording-mailer';

/** Just enough of a token store to watch the sweeper: the real stores run the contract suite. */
function tokenStore(initial: StoredToken[]): TokenRepository & { rows: Map<string, StoredToken> } {
  const rows = new Map(initial.map((t) => [t.id, t]));
  return {
    rows,
    create: async () => ({ status: 'created' }),
    findById: async (_tenant, id) => rows.get(id),
    update: async (t) => {
      if (rows.get(t.id)?.version !== t.version) return { status: 'conflict' };
      rows.set(t.id, { ...t, version: t.version + 1 });
      return { status: 'updated' };
    },
    eraseCvc: async (t, sealedData) => {
      const current = rows.get(t.id);
      if (!current || current.version !== t.version) return false;
      rows.set(t.id, { ...current, sealedData, cvcExpiresAt: undefined, version: current.version + 1 });
      return true;
    },
    delete: async (_tenant, id) => rows.delete(id),
    deleteExpired: async (now) => {
      const dead = [...rows.values()].filter((t) => t.expiresAt && t.expiresAt <= now);
      dead.forEach((t) => rows.delete(t.id));
      return dead.length;
    },
    search: async (_tenant, _query, page) => ({ items: [], total: 0, page: page.page, size: page.size }),
    findCvcDue: async (now, limit) => [...rows.values()].filter((t) => t.cvcExpiresAt && t.cvcExpiresAt <= now).slice(0, limit),
    // The sweeper never creates in bulk, reads many or pages by cursor.
    createMany: async () => {
      throw new Error('not used by the sweeper');
    },
    findMany: async () => new Map(),
    searchAfter: async () => ({ items: [], hasMore: false }),
    findByFingerprint: async () => undefined,
  };
}

const noApplications = { deleteExpired: async () => 0 } as unknown as ApplicationRepository;
const noSessions = { deleteExpired: async () => 0 } as unknown as SessionRepository;
const noIntents = { deleteExpired: async () => 0 } as unknown as TokenIntentRepository;
const noIdempotency = { deleteExpired: async () => 0 } as unknown as IdempotencyRepository;

describe('Sweep', () => {
  it('deletes expired tokens and erases due cvcs from storage', async () => {
    const clock = new FixedClock('2026-01-01T00:00:00.000Z');
    const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random: new CryptoRandomSource(), clock, masterKey: Buffer.alloc(32, 1) });
    const keys = await keyring.forTenant('t');
    const card = { number: '4242424242424242', expiration_month: 1, expiration_year: 2030, cvc: '987' };
    const withCvc = aStoredToken().inTenant('t').with({ type: 'card', cvcExpiresAt: new Date('2026-01-01T01:00:00.000Z') }).build();
    const sealedCard = { ...withCvc, sealedData: keys.seal(withCvc.id, card) };
    const expiring = aStoredToken().inTenant('t').with({ expiresAt: new Date('2026-01-01T00:30:00.000Z') }).build();
    const tokens = tokenStore([sealedCard, expiring]);
    const sweep = new Sweep({ applications: noApplications, tokens, sessions: noSessions, tokenIntents: noIntents, idempotency: noIdempotency, keyring, mailer: new RecordingMailer(), clock });

    expect(await sweep.execute()).toEqual({ applications: 0, tokens: 0, cvcs: 0, sessions: 0, tokenIntents: 0, idempotencyKeys: 0, invitationMessages: 0, auditEvents: 0, deliveries: 0 });
    clock.advanceMinutes(30);
    expect(await sweep.execute()).toEqual({ applications: 0, tokens: 1, cvcs: 0, sessions: 0, tokenIntents: 0, idempotencyKeys: 0, invitationMessages: 0, auditEvents: 0, deliveries: 0 });
    clock.advanceMinutes(30);
    expect(await sweep.execute()).toEqual({ applications: 0, tokens: 0, cvcs: 1, sessions: 0, tokenIntents: 0, idempotencyKeys: 0, invitationMessages: 0, auditEvents: 0, deliveries: 0 });
    const stored = tokens.rows.get(withCvc.id)!;
    expect(stored.cvcExpiresAt).toBeUndefined();
    expect(keys.open(stored.id, stored.sealedData)).toEqual({ number: '4242424242424242', expiration_month: 1, expiration_year: 2030 });
    expect(await sweep.execute()).toEqual({ applications: 0, tokens: 0, cvcs: 0, sessions: 0, tokenIntents: 0, idempotencyKeys: 0, invitationMessages: 0, auditEvents: 0, deliveries: 0 });
  });

  it('leaves a token updated after the sweeper read it to a later sweep, with the update kept', async () => {
    const clock = new FixedClock('2026-01-01T02:00:00.000Z');
    const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random: new CryptoRandomSource(), clock, masterKey: Buffer.alloc(32, 1) });
    const keys = await keyring.forTenant('t');
    const card = { number: '4242424242424242', expiration_month: 1, expiration_year: 2030, cvc: '987' };
    const due = aStoredToken().inTenant('t').with({ type: 'card', cvcExpiresAt: new Date('2026-01-01T01:00:00.000Z') }).build();
    const tokens = tokenStore([{ ...due, sealedData: keys.seal(due.id, card) }]);
    const findCvcDue = tokens.findCvcDue;
    // An update lands between the sweeper's read and its erasure, in the same millisecond as the read.
    tokens.findCvcDue = async (now, limit) => {
      const read = await findCvcDue(now, limit);
      const current = tokens.rows.get(due.id)!;
      await tokens.update({ ...current, metadata: { updated: 'yes' }, modifiedAt: now }, now);
      tokens.findCvcDue = findCvcDue;
      return read;
    };
    const sweep = new Sweep({ applications: noApplications, tokens, sessions: noSessions, tokenIntents: noIntents, idempotency: noIdempotency, keyring, mailer: new RecordingMailer(), clock });

    expect((await sweep.execute()).cvcs).toBe(0);
    expect(tokens.rows.get(due.id)?.metadata).toEqual({ updated: 'yes' });
    expect((await sweep.execute()).cvcs).toBe(1);
    expect(tokens.rows.get(due.id)?.metadata).toEqual({ updated: 'yes' });
  });

  it('deletes the token intents expired at the time of the sweep', async () => {
    const clock = new FixedClock('2026-01-02T00:00:00.000Z');
    const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random: new CryptoRandomSource(), clock, masterKey: Buffer.alloc(32, 1) });
    const asked: Date[] = [];
    const tokenIntents = { deleteExpired: async (now: Date) => (asked.push(now), 3) } as unknown as TokenIntentRepository;
    const sweep = new Sweep({ applications: noApplications, tokens: tokenStore([]), sessions: noSessions, tokenIntents, idempotency: noIdempotency, keyring, mailer: new RecordingMailer(), clock });

    expect((await sweep.execute()).tokenIntents).toBe(3);
    expect(asked).toEqual([clock.now()]);
  });

  it('discards kept invitation messages whose links expired, through the mailer', async () => {
    const clock = new FixedClock('2026-01-04T00:00:00.000Z');
    const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random: new CryptoRandomSource(), clock, masterKey: Buffer.alloc(32, 1) });
    const asked: Date[] = [];
    const mailer = Object.assign(new RecordingMailer(), { discardExpired: async (now: Date) => (asked.push(now), 2) });
    const sweep = new Sweep({ applications: noApplications, tokens: tokenStore([]), sessions: noSessions, tokenIntents: noIntents, idempotency: noIdempotency, keyring, mailer, clock });

    expect((await sweep.execute()).invitationMessages).toBe(2);
    expect(asked).toEqual([clock.now()]);
  });
});
