import type { Invitation } from '../../src/invitations/invitation';
import type { Store } from '../../src/shared/store';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const at = (iso: string): Date => new Date(iso);

function invitation(id: string, patch: Partial<Invitation> = {}): Invitation {
  return {
    id,
    tenantId: T1,
    email: `${id}@example.com`,
    secretHash: `secret-${id}`,
    createdAt: at('2026-01-01T00:00:00.000Z'),
    expiresAt: at('2026-01-04T00:00:00.000Z'),
    ...patch,
  };
}

/** Invitations: uniqueness per tenant and e-mail, look-ups, status filter, resend and delete, conditional or not. */
export function describeInvitationContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('invitation contract', () => {
    const store = useStore(open);

    describe('invitations', () => {
      it('stores one invitation per tenant and e-mail, whatever its case', async () => {
        expect(await store().invitations.create(invitation('i1', { email: 'ada@example.com' }))).toBe(true);
        expect(await store().invitations.create(invitation('i2', { email: 'ada@example.com', secretHash: 'other' }))).toBe(false);
        expect(await store().invitations.create(invitation('i3', { email: 'ada@example.com', tenantId: T2, secretHash: 's3' }))).toBe(true);
        expect((await store().invitations.findByEmail(T1, 'ADA@example.com'))?.id).toBe('i1');
      });

      it('finds invitations by id within a tenant and by secret hash', async () => {
        const full = invitation('i1', { createdBy: 'c', modifiedBy: 'm', modifiedAt: at('2026-01-02T00:00:00.000Z') });
        await store().invitations.create(full);
        expect(await store().invitations.findById(T1, 'i1')).toEqual(full);
        expect(await store().invitations.findById(T2, 'i1')).toBeUndefined();
        expect(await store().invitations.findBySecretHash('secret-i1')).toEqual(full);
      });

      it('lists newest first, filtered by status at a given instant', async () => {
        await store().invitations.create(invitation('i1', { createdAt: at('2026-01-01T00:00:00.000Z'), expiresAt: at('2026-01-02T00:00:00.000Z') }));
        await store().invitations.create(invitation('i2', { createdAt: at('2026-01-02T00:00:00.000Z'), expiresAt: at('2026-01-05T00:00:00.000Z') }));
        await store().invitations.create(invitation('i3', { createdAt: at('2026-01-03T00:00:00.000Z'), expiresAt: at('2026-01-06T00:00:00.000Z'), tenantId: T2 }));
        const now = at('2026-01-02T00:00:00.000Z');
        const ids = async (status?: 'PENDING' | 'EXPIRED') =>
          (await store().invitations.list(T1, { now, ...(status ? { status } : {}) }, { page: 1, size: 20 })).items.map((i) => i.id);
        expect(await ids()).toEqual(['i2', 'i1']);
        expect(await ids('PENDING')).toEqual(['i2']);
        expect(await ids('EXPIRED')).toEqual(['i1']);
        expect((await store().invitations.list(T1, { now }, { page: 2, size: 1 })).items.map((i) => i.id)).toEqual(['i1']);
      });

      it('replaces the secret and expiry on resend, and deletes once', async () => {
        await store().invitations.create(invitation('i1'));
        const resent = { ...invitation('i1'), secretHash: 'new', expiresAt: at('2026-01-07T00:00:00.000Z'), modifiedAt: at('2026-01-04T00:00:00.000Z') };
        expect(await store().invitations.update(resent)).toBe(true);
        expect(await store().invitations.findBySecretHash('secret-i1')).toBeUndefined();
        expect(await store().invitations.findBySecretHash('new')).toEqual(resent);
        expect(await store().invitations.update({ ...resent, tenantId: T2 })).toBe(false);
        expect(await store().invitations.delete(T2, 'i1')).toBe(false);
        expect(await store().invitations.delete(T1, 'i1')).toBe(true);
        expect(await store().invitations.delete(T1, 'i1')).toBe(false);
      });

      it('keeps the e-mail and creation of an invitation on update, whatever the update carries', async () => {
        await store().invitations.create(invitation('i1', { createdBy: 'c' }));
        await store().invitations.update({ ...invitation('i1'), email: 'other@example.com', createdAt: at('2027-01-01T00:00:00.000Z'), secretHash: 'new' });
        expect(await store().invitations.findById(T1, 'i1')).toEqual({ ...invitation('i1', { createdBy: 'c' }), secretHash: 'new' });
      });

      describe('conditional on the secret hash', () => {
        const resend = (hash: string, expiresAt = '2026-01-07T00:00:00.000Z'): Invitation =>
          invitation('i1', { secretHash: hash, expiresAt: at(expiresAt), modifiedBy: 'app', modifiedAt: at('2026-01-04T00:00:00.000Z') });

        it('updates only while the stored invitation carries the expected secret hash', async () => {
          await store().invitations.create(invitation('i1'));
          expect(await store().invitations.update(resend('a'), { expectedSecretHash: 'not-it' })).toBe(false);
          expect(await store().invitations.findById(T1, 'i1')).toEqual(invitation('i1'));
          expect(await store().invitations.update(resend('a'), { expectedSecretHash: 'secret-i1' })).toBe(true);
          expect(await store().invitations.findById(T1, 'i1')).toEqual(resend('a'));
          expect(await store().invitations.update(resend('b'), { expectedSecretHash: 'secret-i1' })).toBe(false);
          expect(await store().invitations.findBySecretHash('a')).toEqual(resend('a'));
        });

        it('restores an earlier secret only while the one it replaced is still in place', async () => {
          await store().invitations.create(invitation('i1'));
          await store().invitations.update(resend('a'), { expectedSecretHash: 'secret-i1' });
          await store().invitations.update(resend('b', '2026-01-08T00:00:00.000Z'), { expectedSecretHash: 'a' });
          // The resend that wrote `a` undoes itself after `b` replaced it: nothing changes, `secret-i1` stays dead.
          expect(await store().invitations.update(invitation('i1'), { expectedSecretHash: 'a' })).toBe(false);
          expect(await store().invitations.findBySecretHash('secret-i1')).toBeUndefined();
          expect(await store().invitations.findBySecretHash('b')).toEqual(resend('b', '2026-01-08T00:00:00.000Z'));
          expect(await store().invitations.update(invitation('i1'), { expectedSecretHash: 'b' })).toBe(true);
          expect(await store().invitations.findBySecretHash('secret-i1')).toEqual(invitation('i1'));
        });

        it('finds nothing to update conditionally in another tenant or once deleted', async () => {
          await store().invitations.create(invitation('i1'));
          expect(await store().invitations.update({ ...resend('a'), tenantId: T2 }, { expectedSecretHash: 'secret-i1' })).toBe(false);
          await store().invitations.delete(T1, 'i1');
          expect(await store().invitations.update(resend('a'), { expectedSecretHash: 'secret-i1' })).toBe(false);
          expect(await store().invitations.findById(T1, 'i1')).toBeUndefined();
        });

        it('deletes only while the stored invitation carries the expected secret hash, and only in its tenant', async () => {
          await store().invitations.create(invitation('i1'));
          await store().invitations.update(resend('a'), { expectedSecretHash: 'secret-i1' });
          expect(await store().invitations.delete(T1, 'i1', { expectedSecretHash: 'secret-i1' })).toBe(false);
          expect(await store().invitations.delete(T2, 'i1', { expectedSecretHash: 'a' })).toBe(false);
          expect(await store().invitations.findById(T1, 'i1')).toEqual(resend('a'));
          expect(await store().invitations.delete(T1, 'i1', { expectedSecretHash: 'a' })).toBe(true);
          expect(await store().invitations.delete(T1, 'i1', { expectedSecretHash: 'a' })).toBe(false);
        });

        it('applies exactly one of two concurrent conditional updates from the same read, 10 times over', async () => {
          for (let round = 0; round < 10; round++) {
            const id = `race-${round}`;
            await store().invitations.create(invitation(id));
            const read = (await store().invitations.findById(T1, id))!;
            const outcomes = await Promise.all(
              ['x', 'y'].map((hash) => store().invitations.update({ ...read, secretHash: `${hash}-${id}` }, { expectedSecretHash: read.secretHash })),
            );
            expect(outcomes.filter(Boolean)).toHaveLength(1);
            const winner = outcomes[0] ? 'x' : 'y';
            expect((await store().invitations.findById(T1, id))?.secretHash).toBe(`${winner}-${id}`);
          }
        });

        it('applies exactly one of a conditional update and a conditional delete from the same read, 10 times over', async () => {
          for (let round = 0; round < 10; round++) {
            const id = `race-${round}`;
            await store().invitations.create(invitation(id));
            const read = (await store().invitations.findById(T1, id))!;
            const [updated, deleted] = await Promise.all([
              store().invitations.update({ ...read, secretHash: `new-${id}` }, { expectedSecretHash: read.secretHash }),
              store().invitations.delete(T1, id, { expectedSecretHash: read.secretHash }),
            ]);
            expect([updated, deleted].filter(Boolean)).toHaveLength(1);
            expect((await store().invitations.findById(T1, id))?.secretHash).toBe(updated ? `new-${id}` : undefined);
          }
        });
      });
    });
  });
}
