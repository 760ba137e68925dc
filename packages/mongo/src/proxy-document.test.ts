import { Binary, BSON } from 'mongodb';
import { find, update } from 'mingo';
import type { Proxy } from '@svc/core';
import { proxyListFilter } from './mongo-proxy.repository';
import { fromProxyDocument, literalPattern, type ProxyDocument, proxyUpdate, toProxyDocument } from './proxy-document';

const at = (iso: string): Date => new Date(iso);
/** Through the driver's BSON codec and back, refusing field names MongoDB would not store. */
const viaBson = <T extends object>(doc: T): T => BSON.deserialize(BSON.serialize(doc, { checkKeys: true })) as T;

const full: Proxy = {
  id: '00000000-0000-7000-b000-000000000001',
  tenantId: 't1',
  name: 'Österreich Payments',
  destinationUrl: 'https://api.partner.example.com/v1?x=1',
  requestTransforms: [
    // A token template is the caller's object: field names MongoDB would refuse stay inside JSON text.
    { type: 'tokenize', matcher: '$.card', token: { type: 'card', metadata: { $where: 'x', 'a.b': 1 } } },
    { type: 'detokenize' },
    { type: 'append_header', name: 'Authorization', value: 'Bearer {{ configuration.key }}' },
  ],
  responseTransforms: [
    { type: 'mask', matcher: 'regex', expression: '\\d{12}(\\d{4})', replacement: '****$1' },
    { type: 'mask', matcher: '$.number', replacement: '****' },
  ],
  applicationId: 'app-1',
  sealedConfiguration: Uint8Array.from([0, 255, 7, 42]),
  requireAuth: true,
  timeoutSeconds: 30,
  disableDetokenization: false,
  keyHash: 'a'.repeat(64),
  version: 4,
  createdBy: 'mgt-1',
  createdAt: at('2026-01-01T00:00:00.000Z'),
  modifiedBy: 'mgt-2',
  modifiedAt: at('2026-01-01T01:00:00.000Z'),
};

const bare: Proxy = {
  ...full,
  applicationId: undefined,
  timeoutSeconds: undefined,
  modifiedBy: undefined,
  modifiedAt: undefined,
  requestTransforms: [],
  responseTransforms: [],
  requireAuth: false,
  disableDetokenization: true,
};

/** Compared as plain values: bytes as an array, absent optional fields left out. */
const plain = (p: Proxy) => JSON.parse(JSON.stringify({ ...p, sealedConfiguration: [...p.sealedConfiguration] })) as unknown;

type Doc = Record<string, unknown>;

describe('proxy documents', () => {
  it('keeps the id as _id, the configuration as BSON binary, the transforms as JSON text and the folded name', () => {
    const doc = toProxyDocument(full);
    expect(doc._id).toBe(full.id);
    expect(doc.sealed_configuration).toBeInstanceOf(Binary);
    expect([...doc.sealed_configuration.value()]).toEqual([0, 255, 7, 42]);
    expect(JSON.parse(doc.request_transforms)).toEqual(full.requestTransforms);
    expect(doc).toMatchObject({ name_lower: 'österreich payments', key_hash: full.keyHash, require_auth: true, version: 4, created_at: full.createdAt });
    expect(doc).not.toHaveProperty('id');
  });

  it('round-trips every field, through the driver\'s own BSON codec too', () => {
    expect(plain(fromProxyDocument(toProxyDocument(full)))).toEqual(plain(full));
    const back = fromProxyDocument(viaBson(toProxyDocument(full)));
    expect(plain(back)).toEqual(plain(full));
    expect(back.sealedConfiguration).toBeInstanceOf(Uint8Array);
    expect(back.createdAt).toEqual(full.createdAt);
    expect(back.modifiedAt).toEqual(full.modifiedAt);
  });

  it('leaves absent optional fields out of the document, and undefined on the way back', () => {
    const doc = toProxyDocument(bare);
    for (const field of ['application_id', 'timeout_seconds', 'modified_by', 'modified_at']) expect(doc).not.toHaveProperty(field);
    const back = fromProxyDocument(viaBson(doc));
    expect(plain(back)).toEqual(plain(bare));
    expect([back.applicationId, back.timeoutSeconds, back.modifiedBy, back.modifiedAt]).toEqual([undefined, undefined, undefined, undefined]);
    expect([back.requireAuth, back.disableDetokenization]).toEqual([false, true]);
  });

  it('reads null optional fields (as another writer may leave them) as undefined', () => {
    const doc = { ...toProxyDocument(bare), application_id: null, timeout_seconds: null, modified_at: null } as unknown as ProxyDocument;
    const back = fromProxyDocument(doc);
    expect([back.applicationId, back.timeoutSeconds, back.modifiedAt]).toEqual([undefined, undefined, undefined]);
  });

  it('updates every field but the key hash and the creation fields, and removes the absent ones (evaluated by mingo)', () => {
    const doc = toProxyDocument(full) as unknown as Doc;
    const changed: Proxy = { ...bare, name: 'Renamed', version: 5, keyHash: 'b'.repeat(64), createdBy: 'other', createdAt: at('2030-01-01T00:00:00.000Z') };
    update(doc, proxyUpdate(changed) as Doc);
    const back = fromProxyDocument(doc as unknown as ProxyDocument);
    expect(plain(back)).toEqual(plain({ ...changed, keyHash: full.keyHash, createdBy: full.createdBy, createdAt: full.createdAt }));
    expect(doc.name_lower).toBe('renamed');
    for (const field of ['application_id', 'timeout_seconds', 'modified_by', 'modified_at']) expect(doc).not.toHaveProperty(field);
  });
});

describe('the proxy list filter (evaluated by mingo, not by MongoDB)', () => {
  const names = ['Stripe Payments', 'PAYOUTS', 'Österreich', '100% sure', 'a_b', 'axb', 'back\\slash', 'dot.star*', 'dots', '(x)[y]^$|?+{1}-/'];
  const docs = [
    ...names.map((name, i) => toProxyDocument({ ...full, id: `p${i}`, name, keyHash: `k${i}` })),
    toProxyDocument({ ...full, id: 'foreign', tenantId: 't2', name: 'Payments', keyHash: 'kf' }),
  ] as unknown as Doc[];
  const matching = (filter: Parameters<typeof proxyListFilter>[1]): string[] =>
    find(docs, proxyListFilter('t1', filter) as Doc)
      .all()
      .map((d) => String(d.name));

  it('keeps to the tenant, and to the ids given (none for an empty list)', () => {
    expect(matching({})).toEqual(names);
    expect(matching({ ids: ['p0', 'p2', 'foreign'] })).toEqual(['Stripe Payments', 'Österreich']);
    expect(matching({ ids: [] })).toEqual([]);
  });

  it('matches names that contain the text, case-insensitively beyond ASCII, with no character of it special', () => {
    expect(matching({ name: 'pay' })).toEqual(['Stripe Payments', 'PAYOUTS']);
    expect(matching({ name: 'ÖSTERREICH' })).toEqual(['Österreich']);
    expect(matching({ name: '%' })).toEqual(['100% sure']);
    expect(matching({ name: '_' })).toEqual(['a_b']);
    expect(matching({ name: '\\' })).toEqual(['back\\slash']);
    expect(matching({ name: '.' })).toEqual(['dot.star*']);
    expect(matching({ name: '*' })).toEqual(['dot.star*']);
    expect(matching({ name: '(x)[y]^$|?+{1}-/' })).toEqual(['(x)[y]^$|?+{1}-/']);
    expect(matching({ name: '' })).toEqual(names);
    expect(matching({ name: 'pay', ids: ['p1', 'p2'] })).toEqual(['PAYOUTS']);
  });

  it('escapes every regular-expression operator', () => {
    const special = '.*+?^${}()|[]\\/-';
    expect(new RegExp(literalPattern(special)).test(`x${special}y`)).toBe(true);
    expect(new RegExp(`^${literalPattern(special)}$`).test(special)).toBe(true);
  });
});
