import { Binary, BSON } from 'mongodb';
import type { Invitation, Member, Session, User } from '@svc/core';
import { aKeyOf, anApplication, aStoredToken } from '@svc/core/testing';
import { fromApplicationDocument, fromApplicationKeyDocuments, toApplicationDocument } from './application-document';
import { fromMemberDocument, fromUserDocument, toMemberDocument, toUserDocument } from './directory-documents';
import { compact, fromBinary, setOrUnset } from './documents';
import { fromInvitationDocument, toInvitationDocument } from './invitation-document';
import { fromSessionDocument, toSessionDocument } from './session-document';
import { fromTokenDocument, metadataPair, toTokenDocument } from './token-document';

const at = (iso: string): Date => new Date(iso);
/** Through the driver's BSON codec and back, refusing field names MongoDB would not store. */
const viaBson = <T extends object>(doc: T): T => BSON.deserialize(BSON.serialize(doc, { checkKeys: true })) as T;

describe('token documents', () => {
  const full = aStoredToken()
    .inTenant('t1')
    .with({
      id: 'tok:1',
      type: 'card',
      mask: { number: '{{ data.number | reveal_last: 4 }}', 'a.b': '$x' },
      containers: ['/pci/high/'],
      metadata: { Customer: 'ABC', note: 'x', $where: 'a.b' },
      searchIndexes: ['{{ data }}'],
      indexHashes: ['h1', 'h2'],
      deduplicateToken: true,
      modifiedBy: 'm1',
      modifiedAt: at('2026-01-01T01:00:00.000Z'),
      expiresAt: at('2027-01-01T00:00:00.000Z'),
      cvcExpiresAt: at('2026-01-01T01:00:00.000Z'),
      sealedData: Uint8Array.from([0, 255, 7, 42]),
    })
    .build();

  it('holds ciphertext as BSON binary, the container, lower-cased metadata pairs and the index hashes', () => {
    const doc = toTokenDocument(full, { dedupClaim: false });
    expect(doc.sealed_data).toBeInstanceOf(Binary);
    expect([...doc.sealed_data.value()]).toEqual([0, 255, 7, 42]);
    expect(doc).toMatchObject({
      tenant_id: 't1',
      id: 'tok:1',
      container: '/pci/high/',
      containers: ['/pci/high/'],
      metadata: [
        { key: 'Customer', value: 'ABC' },
        { key: 'note', value: 'x' },
        { key: '$where', value: 'a.b' },
      ],
      metadata_pairs: ['"customer"\u0000"abc"', '"note"\u0000"x"', '"$where"\u0000"a.b"'],
      index_hashes: ['h1', 'h2'],
      mask: JSON.stringify(full.mask),
      created_at: full.createdAt,
      expires_at: full.expiresAt,
    });
    expect(doc).not.toHaveProperty('dedup_claim');
  });

  it('round-trips every field', () => {
    expect(fromTokenDocument(toTokenDocument(full, { dedupClaim: true }))).toEqual(full);
  });

  it('leaves absent optional fields out of the document, and undefined on the way back', () => {
    const token = aStoredToken().inTenant('t1').build();
    const doc = toTokenDocument(token, { dedupClaim: false });
    for (const field of ['mask', 'search_indexes', 'deduplicate_token', 'modified_by', 'modified_at', 'expires_at', 'cvc_expires_at', 'dedup_claim']) {
      expect(doc).not.toHaveProperty(field);
    }
    const back = fromTokenDocument(doc);
    expect(back).toEqual(token);
    expect(back.mask).toBeUndefined();
    expect(back.indexHashes).toEqual([]);
  });

  it('reads null optional fields (as another writer may leave them) as undefined', () => {
    const doc = { ...toTokenDocument(aStoredToken().build(), { dedupClaim: false }), mask: null, expires_at: null, modified_by: null };
    const back = fromTokenDocument(doc);
    expect([back.mask, back.expiresAt, back.modifiedBy]).toEqual([undefined, undefined, undefined]);
  });

  it('survives the driver\'s own BSON codec, with field names MongoDB accepts', () => {
    expect(fromTokenDocument(viaBson(toTokenDocument(full, { dedupClaim: true })))).toEqual(full);
  });

  it('marks a deduplicated token as holding the claim', () => {
    expect(toTokenDocument(full, { dedupClaim: true }).dedup_claim).toBe(true);
  });

  it('writes each metadata pair once, whatever the case of its duplicates', () => {
    const token = aStoredToken().with({ metadata: { Plan: 'Gold', plan: 'GOLD' } }).build();
    expect(toTokenDocument(token, { dedupClaim: false }).metadata_pairs).toEqual([metadataPair('plan', 'gold')]);
  });

  it('quotes metadata so that a pair matches only a whole pair', () => {
    expect(metadataPair('A\u0000B', 'C')).toBe('"a\\u0000b"\u0000"c"');
    expect(metadataPair('a', 'b\u0000"c"')).not.toBe(metadataPair('a", "b', 'c'));
  });
});

describe('directory, application, session and invitation documents', () => {
  it('keys applications by id and round-trips them, rules included', () => {
    const app = anApplication()
      .inTenant('t1')
      .ofType('private')
      .withPermissions('token:read')
      .withRules({ priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] })
      .expiringAt('2027-01-01T00:00:00.000Z')
      .build();
    const older = aKeyOf(app).with({ createdBy: 'c1' }).build();
    const newer = aKeyOf(app).createdAt('2026-02-01T00:00:00.000Z').build();
    const doc = toApplicationDocument(app, [older, newer]);
    expect(doc).toMatchObject({ _id: app.id, tenant_id: 't1', expires_at: app.expiresAt });
    expect(doc.keys).toEqual([
      { id: older.id, key_hash: older.keyHash, created_by: 'c1', created_at: older.createdAt },
      { id: newer.id, key_hash: newer.keyHash, created_at: newer.createdAt },
    ]);
    expect(doc).not.toHaveProperty('modified_at');
    expect(fromApplicationDocument(viaBson(doc))).toEqual(app);
    expect(fromApplicationKeyDocuments(viaBson(doc))).toEqual([newer, older]);
  });

  it('stores the lower-cased e-mail of a user beside the one given', () => {
    const user: User = { id: 'u1', email: 'Ada@Example.com', firstName: 'Ada', createdAt: at('2026-01-01T00:00:00.000Z') };
    const doc = toUserDocument(user);
    expect(doc).toEqual({ _id: 'u1', email: 'Ada@Example.com', email_lower: 'ada@example.com', first_name: 'Ada', created_at: user.createdAt });
    expect(fromUserDocument(viaBson(doc))).toEqual(user);
  });

  it('round-trips members', () => {
    const member: Member = { id: 'm1', tenantId: 't1', userId: 'u1', role: 'OWNER', createdAt: at('2026-01-01T00:00:00.000Z') };
    expect(toMemberDocument(member)).toEqual({ _id: 'm1', tenant_id: 't1', user_id: 'u1', role: 'OWNER', created_at: member.createdAt });
    expect(fromMemberDocument(viaBson(toMemberDocument(member)))).toEqual(member);
  });

  it('round-trips sessions, with authorization absent until granted', () => {
    const session: Session = {
      id: 's1',
      tenantId: 't1',
      applicationId: 'a1',
      keyHash: 'k'.repeat(64),
      nonceHash: 'n'.repeat(64),
      createdAt: at('2026-01-01T00:00:00.000Z'),
      expiresAt: at('2026-01-01T00:03:00.000Z'),
      permissions: [],
      rules: [{ priority: 1, conditions: [{ attribute: 'id', operator: 'starts_with', value: 'x' }], transform: 'mask', permissions: ['token:read'] }],
    };
    const doc = toSessionDocument(session);
    expect(doc).not.toHaveProperty('authorized_at');
    expect(fromSessionDocument(viaBson(doc))).toEqual(session);
  });

  it('round-trips invitations with a lower-cased e-mail key', () => {
    const invitation: Invitation = {
      id: 'i1',
      tenantId: 't1',
      email: 'bob@example.com',
      secretHash: 's'.repeat(64),
      createdAt: at('2026-01-01T00:00:00.000Z'),
      expiresAt: at('2026-01-08T00:00:00.000Z'),
    };
    expect(toInvitationDocument(invitation)).toMatchObject({ _id: 'i1', email_lower: 'bob@example.com', secret_hash: invitation.secretHash });
    expect(fromInvitationDocument(viaBson(toInvitationDocument(invitation)))).toEqual(invitation);
  });
});

describe('document helpers', () => {
  it('drops undefined fields and keeps null, false and empty values', () => {
    expect(compact({ a: undefined, b: null, c: false, d: '', e: 0 })).toEqual({ b: null, c: false, d: '', e: 0 });
    expect(Object.keys(compact({ a: undefined, b: 1 }))).toEqual(['b']);
  });

  it('sets defined fields and unsets cleared ones', () => {
    const when = at('2026-01-01T00:00:00.000Z');
    expect(setOrUnset({ a: 1, b: undefined, c: when })).toEqual({ $set: { a: 1, c: when }, $unset: { b: '' } });
    expect(setOrUnset({ a: 1 })).toEqual({ $set: { a: 1 } });
  });

  it('copies binary data out of the driver\'s buffer', () => {
    const backing = Uint8Array.from([9, 1, 2, 3, 9]);
    const bytes = fromBinary(new Binary(backing.subarray(1, 4)));
    expect([...bytes]).toEqual([1, 2, 3]);
    backing[1] = 7;
    expect(bytes[0]).toBe(1);
  });
});
