import type { AuditEvent } from '../../src/audit/audit-event';
import { type OutboxMessage, outboxEventText, type WriteEffects } from '../../src/audit/write-effects';
import type { Store } from '../../src/shared/store';
import type { ExpectedOutcome } from '../../src/tokens/token.repository';
import type { Webhook, WebhookEventType } from '../../src/webhooks/webhook';
import { aKeyOf, anApplication, aStoredToken } from '../builders';
import { anAuditEvent } from './audit-log.contract';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const NOW = new Date('2026-01-01T00:00:00.000Z');

let seq = 0;
const nextId = (): string => `00000000-0000-7000-9000-${String(++seq).padStart(12, '0')}`;

export function aHook(patch: Partial<Webhook> = {}): Webhook {
  return {
    id: nextId(),
    tenantId: T1,
    name: 'hook',
    url: 'https://hooks.example.com/in',
    events: ['token.created', 'token.updated', 'token.deleted', 'token.expired', 'application.created'],
    status: 'enabled',
    sealedSecret: Uint8Array.from([1, 2, 3]),
    createdBy: 'app-1',
    createdAt: NOW,
    ...patch,
  };
}

export function aMessage(type: WebhookEventType, patch: Partial<OutboxMessage> = {}): OutboxMessage {
  const id = nextId();
  return {
    id,
    tenantId: T1,
    type,
    createdAt: new Date(NOW.getTime() + seq),
    actor: { id: 'app-1', type: 'application', traceId: 'trace-1' },
    data: { id: `obj-${id}`, metadata: { note: 'a "quoted" value' } },
    ...patch,
  };
}

/** Effects of one write: an event about `entityId` and, when a type is given, a message of that type. */
function effectsOf(entityId: string, type?: WebhookEventType, tenantId = T1): WriteEffects {
  return {
    events: [anAuditEvent({ tenantId, entityId, operation: 'write', message: 'A write' })],
    messages: type ? [aMessage(type, { tenantId })] : [],
  };
}

/**
 * WriteEffects (ADR 4): every write stores its events and fans its messages out to deliveries in its own transaction,
 * and only when it changed something.
 */
export function describeWriteEffectsContract(open: () => Promise<Store>): void {
  describe('write effects contract', () => {
    const store = useStore(open);
    let hook: Webhook;

    beforeEach(async () => {
      hook = aHook();
      await store().webhooks.create(hook, 50);
    });

    /** The ids of the events stored about `entityId`, and of the deliveries made for `hook`. */
    const events = async (entityId: string, tenantId = T1): Promise<readonly AuditEvent[]> =>
      (await store().auditLog.list(tenantId, { entityId }, { page: 1, size: 100 })).items;
    const deliveries = async (webhook = hook) => (await store().webhookDeliveries.list(webhook.tenantId, webhook.id, { page: 1, size: 100 })).items;
    const expectStored = async (effects: WriteEffects, entityId: string) => {
      expect((await events(entityId)).map((e) => e.id)).toEqual(effects.events.map((e) => e.id));
      const made = (await deliveries()).map((d) => d.eventId);
      for (const m of effects.messages) expect(made).toContain(m.id);
    };
    const expectNone = async (entityId: string) => {
      expect(await events(entityId)).toEqual([]);
    };

    describe('tokens', () => {
      it('stores a create\'s effects, and none for a taken id or a deduplication', async () => {
        const token = aStoredToken().inTenant(T1).build();
        const fx = effectsOf(token.id, 'token.created');
        expect(await store().tokens.create(token, { deduplicate: false, now: NOW, effects: fx })).toEqual({ status: 'created' });
        await expectStored(fx, token.id);
        const delivery = (await deliveries())[0]!;
        expect(delivery).toMatchObject({ tenantId: T1, webhookId: hook.id, eventId: fx.messages[0]!.id, eventType: 'token.created', status: 'pending', attempts: [] });
        expect(delivery.event).toBe(outboxEventText(fx.messages[0]!));
        expect(delivery.nextAttemptAt?.getTime()).toBe(fx.messages[0]!.createdAt.getTime());

        const again = effectsOf(token.id, 'token.created');
        expect(await store().tokens.create({ ...token, fingerprint: 'other' }, { deduplicate: false, now: NOW, effects: again })).toEqual({ status: 'duplicate_id' });
        const twin = aStoredToken().inTenant(T1).with({ fingerprint: token.fingerprint }).build();
        const dedup = effectsOf(twin.id, 'token.created');
        expect((await store().tokens.create(twin, { deduplicate: true, now: NOW, effects: dedup })).status).toBe('existing');
        await expectNone(twin.id);
        expect(await events(token.id)).toHaveLength(1);
        expect(await deliveries()).toHaveLength(1);
      });

      it('stores the effects of each token a createMany creates, and none when it stores nothing', async () => {
        const [a, b] = [aStoredToken().inTenant(T1).build(), aStoredToken().inTenant(T1).build()];
        const twin = aStoredToken().inTenant(T1).with({ fingerprint: a.fingerprint }).build();
        const [fa, fb, ft] = [effectsOf(a.id, 'token.created'), effectsOf(b.id, 'token.created'), effectsOf(twin.id, 'token.created')];
        const outcome = await store().tokens.createMany(
          [
            { token: a, deduplicate: false, effects: fa },
            { token: b, deduplicate: false, effects: fb },
            { token: twin, deduplicate: true, effects: ft },
          ],
          NOW,
        );
        expect(outcome.status).toBe('created');
        await expectStored(fa, a.id);
        await expectStored(fb, b.id);
        await expectNone(twin.id);
        expect(await deliveries()).toHaveLength(2);

        const c = aStoredToken().inTenant(T1).build();
        const refused = await store().tokens.createMany(
          [
            { token: c, deduplicate: false, effects: effectsOf(c.id, 'token.created') },
            { token: { ...a, fingerprint: 'x' }, deduplicate: false, effects: effectsOf(a.id, 'token.created') },
          ],
          NOW,
        );
        expect(refused).toEqual({ status: 'duplicate_id', index: 1 });
        await expectNone(c.id);
        expect(await events(a.id)).toHaveLength(1);
        expect(await deliveries()).toHaveLength(2);
      });

      it('keeps an idempotent answer with the token write that makes it, only while its claim holds the key running', async () => {
        const claimOf = (key: string, claimId = `claim-${key}`) => ({ tenantId: T1, callerId: 'app-1', key, fingerprint: 'fp', claimId, claimedAt: NOW, expiresAt: new Date(NOW.getTime() + 60_000) });
        const keptOf = (key: string, claimId = `claim-${key}`) => ({ tenantId: T1, callerId: 'app-1', key, claimId, sealedResponse: Uint8Array.from([9, key.length]), expiresAt: new Date(NOW.getTime() + 86_400_000) });
        const kept = (fx: WriteEffects, key: string, claimId?: string): WriteEffects => ({ ...fx, kept: keptOf(key, claimId) });
        const entry = async (key: string) => {
          const found = await store().idempotency.find(T1, 'app-1', key, NOW);
          return found && { state: found.state, sealed: found.sealedResponse && [...found.sealedResponse] };
        };
        for (const key of ['k-create', 'k-taken', 'k-dedup', 'k-other-claim', 'k-many', 'k-many-dedup']) {
          expect(await store().idempotency.claim(claimOf(key), NOW, new Date(0))).toEqual({ claimed: true });
        }

        const token = aStoredToken().inTenant(T1).build();
        await store().tokens.create(token, { deduplicate: false, now: NOW, effects: kept(effectsOf(token.id), 'k-create') });
        expect(await entry('k-create')).toEqual({ state: 'done', sealed: [9, 8] });
        // A taken id and a deduplication write nothing, and keep nothing.
        await store().tokens.create({ ...token, fingerprint: 'other' }, { deduplicate: false, now: NOW, effects: kept(effectsOf(token.id), 'k-taken') });
        expect(await entry('k-taken')).toEqual({ state: 'running', sealed: undefined });
        const twin = aStoredToken().inTenant(T1).with({ fingerprint: token.fingerprint }).build();
        await store().tokens.create(twin, { deduplicate: true, now: NOW, effects: kept(effectsOf(twin.id), 'k-dedup') });
        expect(await entry('k-dedup')).toEqual({ state: 'running', sealed: undefined });
        // A claim taken over since (another claim id) is not completed by the first claim's write.
        const other = aStoredToken().inTenant(T1).build();
        await store().tokens.create(other, { deduplicate: false, now: NOW, effects: kept(effectsOf(other.id), 'k-other-claim', 'stale') });
        expect(await entry('k-other-claim')).toEqual({ state: 'running', sealed: undefined });

        const plain = (t: ReturnType<typeof aToken>, deduplicate = false) => ({ token: t, deduplicate, effects: effectsOf(t.id) });
        const aToken = () => aStoredToken().inTenant(T1).build();
        const created = { status: 'created' } as const;
        const ifAll = (key: string, expected: ExpectedOutcome[]) => ({ expected, effects: kept({ events: [], messages: [] }, key) });
        const many = await store().tokens.createMany([plain(aToken()), plain(aToken())], NOW, ifAll('k-many', [created, created]));
        expect(many.status).toBe('created');
        expect(await entry('k-many')).toEqual({ state: 'done', sealed: [9, 6] });
        // Outcomes other than the expected ones (a deduplication where a create was expected): nothing kept.
        const twinOf = aStoredToken().inTenant(T1).with({ fingerprint: token.fingerprint }).build();
        await store().tokens.createMany([plain(aToken()), plain(twinOf, true)], NOW, ifAll('k-many-dedup', [created, created]));
        expect(await entry('k-many-dedup')).toEqual({ state: 'running', sealed: undefined });
        // The expected deduplication, to the token as it is: kept.
        const found = (await store().tokens.findByFingerprint(T1, token.type, token.fingerprint, NOW))!;
        expect(found.id).toBe(token.id);
        expect(await store().idempotency.claim(claimOf('k-many-mixed'), NOW, new Date(0))).toEqual({ claimed: true });
        const twinAgain = aStoredToken().inTenant(T1).with({ fingerprint: token.fingerprint }).build();
        const mixed = await store().tokens.createMany([plain(aToken()), plain(twinAgain, true)], NOW, ifAll('k-many-mixed', [created, { status: 'existing', id: token.id, version: found.version, createdAt: found.createdAt.getTime() }]));
        expect(mixed).toMatchObject({ status: 'created', outcomes: [created, { status: 'existing', token: { id: token.id } }] });
        expect(await entry('k-many-mixed')).toEqual({ state: 'done', sealed: [9, 12] });
        // The same id and version but another creation (deleted and made again since the read): another token.
        expect(await store().idempotency.claim(claimOf('k-many-stale'), NOW, new Date(0))).toEqual({ claimed: true });
        const stale = { status: 'existing', id: token.id, version: found.version, createdAt: found.createdAt.getTime() - 1 } as const;
        await store().tokens.createMany([plain(aStoredToken().inTenant(T1).with({ fingerprint: token.fingerprint }).build(), true)], NOW, ifAll('k-many-stale', [stale]));
        expect(await entry('k-many-stale')).toEqual({ state: 'running', sealed: undefined });
      });

      it('stores an update\'s effects only when the compare-and-set wins', async () => {
        const token = aStoredToken().inTenant(T1).build();
        await store().tokens.create(token, { deduplicate: false, now: NOW });
        const updates = [effectsOf(token.id, 'token.updated'), effectsOf(token.id, 'token.updated'), effectsOf(token.id, 'token.updated')];
        const outcomes = await Promise.all(updates.map((fx) => store().tokens.update({ ...token, metadata: { n: '1' } }, NOW, fx)));
        const won = outcomes.findIndex((o) => o.status === 'updated');
        expect(outcomes.filter((o) => o.status === 'updated')).toHaveLength(1);
        await expectStored(updates[won]!, token.id);
        expect(await deliveries()).toHaveLength(1);
        const ghost = aStoredToken().inTenant(T1).build();
        expect((await store().tokens.update(ghost, NOW, effectsOf(ghost.id, 'token.updated'))).status).toBe('gone');
        await expectNone(ghost.id);
      });

      it('stores the effects of exactly one of concurrent deletes', async () => {
        const token = aStoredToken().inTenant(T1).build();
        await store().tokens.create(token, { deduplicate: false, now: NOW });
        const fxs = [effectsOf(token.id, 'token.deleted'), effectsOf(token.id, 'token.deleted'), effectsOf(token.id, 'token.deleted')];
        const results = await Promise.all(fxs.map((fx) => store().tokens.delete(T1, token.id, fx)));
        expect(results.filter(Boolean)).toHaveLength(1);
        await expectStored(fxs[results.indexOf(true)]!, token.id);
        expect(await deliveries()).toHaveLength(1);
      });

      it('stores a token.expired message and a system delete event for each expired token the sweeper removes', async () => {
        const expired = aStoredToken().inTenant(T1).with({ expiresAt: new Date(NOW.getTime() - 1), metadata: { k: 'v' } }).build();
        const live = aStoredToken().inTenant(T1).with({ expiresAt: new Date(NOW.getTime() + 60_000) }).build();
        for (const t of [expired, live]) await store().tokens.create(t, { deduplicate: false, now: new Date(0) });
        expect(await store().tokens.deleteExpired(NOW)).toBe(1);
        const [event] = await events(expired.id);
        expect(event).toMatchObject({ tenantId: T1, actorType: 'system', entityType: 'token', entityId: expired.id, operation: 'delete', outcome: 'success' });
        const [delivery] = await deliveries();
        expect(delivery?.eventType).toBe('token.expired');
        const body = JSON.parse(delivery!.event) as { type: string; tenant_id: string; data: Record<string, unknown> };
        expect(body).toMatchObject({ type: 'token.expired', tenant_id: T1, data: { id: expired.id, type: expired.type, metadata: { k: 'v' }, actor: { type: 'system' } } });
        expect(body.data).not.toHaveProperty('data');
        await expectNone(live.id);
      });
    });

    describe('fan-out', () => {
      it('delivers a message to each enabled webhook of its tenant subscribed to its type, and to no other', async () => {
        const second = aHook({ events: ['token.created'] });
        const disabled = aHook({ status: 'disabled' });
        const unsubscribed = aHook({ events: ['application.deleted'] });
        const foreign = aHook({ tenantId: T2 });
        for (const h of [second, disabled, unsubscribed, foreign]) await store().webhooks.create(h, 50);
        const token = aStoredToken().inTenant(T1).build();
        const fx = effectsOf(token.id, 'token.created');
        await store().tokens.create(token, { deduplicate: false, now: NOW, effects: fx });
        expect((await deliveries(hook)).map((d) => d.eventId)).toEqual([fx.messages[0]!.id]);
        expect((await deliveries(second)).map((d) => d.eventId)).toEqual([fx.messages[0]!.id]);
        for (const h of [disabled, unsubscribed, foreign]) expect(await deliveries(h)).toEqual([]);
        expect(await store().webhookDeliveries.countPending()).toBe(2);
      });

      it('stores events of a write that no webhook wants, and a message with no subscriber leaves nothing', async () => {
        const token = aStoredToken().inTenant(T2).build();
        const fx = effectsOf(token.id, 'token.created', T2);
        await store().tokens.create(token, { deduplicate: false, now: NOW, effects: fx });
        expect((await events(token.id, T2)).map((e) => e.id)).toEqual([fx.events[0]!.id]);
        expect(await store().webhookDeliveries.countPending()).toBe(0);
      });

      it('removes a webhook\'s deliveries with it', async () => {
        const token = aStoredToken().inTenant(T1).build();
        await store().tokens.create(token, { deduplicate: false, now: NOW, effects: effectsOf(token.id, 'token.created') });
        expect(await store().webhooks.delete(T1, hook.id)).toBe(true);
        expect(await deliveries()).toEqual([]);
        expect(await store().webhookDeliveries.countPending()).toBe(0);
      });
    });

    describe('applications', () => {
      it('stores effects of create, update, key add (not past the limit), key delete, regenerate and delete', async () => {
        const app = anApplication().inTenant(T1).build();
        const key = aKeyOf(app).build();
        const created = effectsOf(app.id, 'application.created');
        await store().applications.create(app, key, created);
        await expectStored(created, app.id);

        const updated = effectsOf(app.id);
        expect(await store().applications.update({ ...app, name: 'renamed' }, updated)).toBe(true);
        const added = effectsOf(app.id);
        expect(await store().applications.addKey(aKeyOf(app).build(), 2, added)).toBe('added');
        const refused = effectsOf(app.id);
        expect(await store().applications.addKey(aKeyOf(app).build(), 2, refused)).toBe('limit');
        const keyDeleted = effectsOf(app.id);
        expect(await store().applications.deleteKey(T1, app.id, key.id, keyDeleted)).toBe(true);
        expect(await store().applications.deleteKey(T1, app.id, key.id, effectsOf(app.id))).toBe(false);
        const regenerated = effectsOf(app.id);
        expect(await store().applications.replaceKeys(app, aKeyOf(app).build(), regenerated)).toBe(true);
        const deleted = effectsOf(app.id);
        expect(await store().applications.delete(T1, app.id, deleted)).toBe(true);
        expect(await store().applications.delete(T1, app.id, effectsOf(app.id))).toBe(false);
        expect(await store().applications.update(app, effectsOf(app.id))).toBe(false);
        expect(await store().applications.replaceKeys(app, aKeyOf(app).build(), effectsOf(app.id))).toBe(false);
        expect(await store().applications.addKey(aKeyOf(app).build(), 10, effectsOf(app.id))).toBe('absent');

        const expected = [created, updated, added, keyDeleted, regenerated, deleted].flatMap((fx) => fx.events.map((e) => e.id));
        expect((await events(app.id)).map((e) => e.id).sort()).toEqual(expected.sort());
      });
    });

    describe('sessions, members, invitations, intents and webhooks', () => {
      it('stores the effects of session creation and of its one authorization', async () => {
        const session = {
          id: 'ses-1',
          tenantId: T1,
          applicationId: 'app-1',
          keyHash: 'kh',
          nonceHash: 'nh',
          createdAt: NOW,
          expiresAt: new Date(NOW.getTime() + 180_000),
          permissions: [],
          rules: [],
        };
        const created = effectsOf('ses-1');
        await store().sessions.create(session, created);
        const grant = { permissions: [], rules: [], expiresAt: session.expiresAt, authorizedAt: NOW };
        const auth = [effectsOf('ses-1'), effectsOf('ses-1')];
        const results = await Promise.all(auth.map((fx) => store().sessions.authorize(T1, 'ses-1', grant, fx)));
        const winner = auth[results.indexOf(true)]!;
        expect((await events('ses-1')).map((e) => e.id).sort()).toEqual([...created.events, ...winner.events].map((e) => e.id).sort());
      });

      it('stores the effects of member creation and deletion, not of deleting nothing', async () => {
        const member = { id: 'mem-1', tenantId: T1, userId: 'user-1', role: 'ADMIN' as const, createdAt: NOW };
        const created = effectsOf('mem-1');
        await store().members.create(member, created);
        const deleted = effectsOf('mem-1');
        expect(await store().members.delete(T1, 'mem-1', deleted)).toBe(true);
        expect(await store().members.delete(T1, 'mem-1', effectsOf('mem-1'))).toBe(false);
        expect((await events('mem-1')).map((e) => e.id).sort()).toEqual([...created.events, ...deleted.events].map((e) => e.id).sort());
      });

      it('stores the effects of invitation writes that happen, conditional ones included', async () => {
        const invitation = { id: 'inv-1', tenantId: T1, email: 'ada@example.com', secretHash: 's1', createdAt: NOW, expiresAt: new Date(NOW.getTime() + 1e8) };
        const created = effectsOf('inv-1');
        expect(await store().invitations.create(invitation, created)).toBe(true);
        expect(await store().invitations.create({ ...invitation, id: 'inv-2' }, effectsOf('inv-2'))).toBe(false);
        await expectNone('inv-2');
        const resent = effectsOf('inv-1');
        expect(await store().invitations.update({ ...invitation, secretHash: 's2' }, { expectedSecretHash: 's1' }, resent)).toBe(true);
        expect(await store().invitations.update({ ...invitation, secretHash: 's3' }, { expectedSecretHash: 's1' }, effectsOf('inv-1'))).toBe(false);
        expect(await store().invitations.delete(T1, 'inv-1', { expectedSecretHash: 's1' }, effectsOf('inv-1'))).toBe(false);
        const accepted = effectsOf('inv-1');
        expect(await store().invitations.delete(T1, 'inv-1', { expectedSecretHash: 's2' }, accepted)).toBe(true);
        const ids = [created, resent, accepted].flatMap((fx) => fx.events.map((e) => e.id));
        expect((await events('inv-1')).map((e) => e.id).sort()).toEqual(ids.sort());
      });

      it('stores the effects of an intent\'s creation and of the one take that gets it', async () => {
        const intent = {
          id: 'ti-1',
          tenantId: T1,
          type: 'card' as const,
          sealedData: Uint8Array.from([1]),
          fingerprint: 'fp',
          createdBy: 'app-1',
          createdAt: NOW,
          expiresAt: new Date(NOW.getTime() + 1e8),
        };
        const created = effectsOf('ti-1');
        await store().tokenIntents.create(intent, created);
        const takes = [effectsOf('ti-1'), effectsOf('ti-1'), effectsOf('ti-1')];
        const taken = await Promise.all(takes.map((fx) => store().tokenIntents.take(T1, 'ti-1', NOW, fx)));
        const winner = takes[taken.findIndex((t) => t !== undefined)]!;
        expect(taken.filter((t) => t !== undefined)).toHaveLength(1);
        expect((await events('ti-1')).map((e) => e.id).sort()).toEqual([...created.events, ...winner.events].map((e) => e.id).sort());
      });

      it('stores the effects of webhook writes that happen, not of one past the limit', async () => {
        const w = aHook();
        const created = effectsOf(w.id);
        expect(await store().webhooks.create(w, 50, created)).toBe('created');
        const over = aHook();
        expect(await store().webhooks.create(over, 2, effectsOf(over.id))).toBe('limit');
        await expectNone(over.id);
        const updated = effectsOf(w.id);
        expect(await store().webhooks.update({ ...w, name: 'renamed' }, updated)).toBe(true);
        const deleted = effectsOf(w.id);
        expect(await store().webhooks.delete(T1, w.id, deleted)).toBe(true);
        expect(await store().webhooks.delete(T1, w.id, effectsOf(w.id))).toBe(false);
        expect(await store().webhooks.update(w, effectsOf(w.id))).toBe(false);
        const ids = [created, updated, deleted].flatMap((fx) => fx.events.map((e) => e.id));
        expect((await events(w.id)).map((e) => e.id).sort()).toEqual(ids.sort());
      });
    });
  });
}
