import { Binary } from 'mongodb';
import type { StoredTokenIntent } from '@svc/core';
import { fromTokenIntentDocument, toTokenIntentDocument } from './token-intent-document';

describe('token intent documents', () => {
  const intent: StoredTokenIntent = {
    id: '0b8f2c1e-1111-4000-8000-000000000001',
    tenantId: 't1',
    type: 'bank',
    sealedData: Uint8Array.from([1, 0, 255, 7]),
    fingerprint: 'fp',
    createdBy: 'app',
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    expiresAt: new Date('2026-01-02T00:00:00.000Z'),
  };

  it('keeps the id as _id and the sealed data as BSON binary, and reads back what it wrote', () => {
    const doc = toTokenIntentDocument(intent);
    expect(doc._id).toBe(intent.id);
    expect(doc.sealed_data).toBeInstanceOf(Binary);
    expect(doc.expires_at).toEqual(intent.expiresAt);
    const back = fromTokenIntentDocument(doc);
    expect({ ...back, sealedData: [...back.sealedData] }).toEqual({ ...intent, sealedData: [1, 0, 255, 7] });
  });
});
