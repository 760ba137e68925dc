import type { Actor } from '../auth/actor';
import type { AccessRule } from './access-rule';
import { mayEverDo, transformFor } from './evaluate-access';

const actor = (patch: Partial<Actor>): Actor => ({
  tenantId: 't',
  kind: 'application',
  applicationId: 'a',
  applicationType: 'private',
  permissions: [],
  rules: [],
  authorized: true,
  ...patch,
});
const token = { id: 'tok_1', containers: ['/pci/high/'] };

describe('transformFor', () => {
  it('masks for plain permissions and reveals with token:use', () => {
    expect(transformFor(actor({ permissions: ['token:read'] }), 'token:read', token)).toBe('mask');
    expect(transformFor(actor({ permissions: ['token:read', 'token:use'] }), 'token:read', token)).toBe('reveal');
    expect(transformFor(actor({ permissions: ['token:create'] }), 'token:read', token)).toBeUndefined();
  });

  it('uses rules alone when there are any, by ascending priority', () => {
    const rules: AccessRule[] = [
      { priority: 2, container: '/', transform: 'redact', permissions: ['token:read'] },
      { priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] },
    ];
    expect(transformFor(actor({ rules, permissions: ['token:use'] }), 'token:read', token)).toBe('reveal');
    expect(transformFor(actor({ rules }), 'token:read', { id: 'x', containers: ['/pii/'] })).toBe('redact');
    expect(transformFor(actor({ rules }), 'token:update', token)).toBeUndefined();
  });

  it('does not let a container rule match a sibling with a shared prefix', () => {
    const rules: AccessRule[] = [{ priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] }];
    expect(transformFor(actor({ rules }), 'token:read', { id: 'x', containers: ['/pcix/'] })).toBeUndefined();
  });

  it('evaluates session conditions, ANDed within a rule', () => {
    const rules: AccessRule[] = [
      {
        priority: 1,
        conditions: [
          { attribute: 'id', operator: 'starts_with', value: 'tok_' },
          { attribute: 'container', operator: 'equals', value: '/pci/high/' },
        ],
        transform: 'reveal',
        permissions: ['token:read'],
      },
    ];
    const session = actor({ kind: 'session', applicationType: 'public', rules });
    expect(transformFor(session, 'token:read', token)).toBe('reveal');
    expect(transformFor(session, 'token:read', { id: 'other', containers: ['/pci/high/'] })).toBeUndefined();
    expect(transformFor(session, 'token:read', { id: 'tok_2', containers: ['/pci/'] })).toBeUndefined();
  });

  it('grants nothing to an unauthorized session', () => {
    const pending = actor({ kind: 'session', authorized: false, permissions: ['token:read'] });
    expect(transformFor(pending, 'token:read', token)).toBeUndefined();
    expect(mayEverDo(pending, 'token:read')).toBe(false);
  });
});
