import fc from 'fast-check';
import type { AccessRule, Transform } from '../access/access-rule';
import { transformFor } from '../access/evaluate-access';
import type { Permission } from '../access/permissions';
import type { Actor } from '../auth/actor';
import { boundByAuthorizer, type TokenAccess } from './session-bounds';

const PERMISSIONS: Permission[] = ['token:create', 'token:read', 'token:update', 'token:search'];
const CONTAINERS = ['/', '/pci/', '/pci/high/', '/pii/', '/pii/x/', '/general/'];
const IDS = ['t1', 't2', 'tok-9'];
const ORDER: Record<Transform, number> = { redact: 0, mask: 1, reveal: 2 };

const actor = (access: TokenAccess): Actor => ({
  tenantId: 't',
  kind: 'session',
  applicationId: 'a',
  applicationType: 'public',
  permissions: access.permissions,
  rules: access.rules,
  authorized: true,
});

const transform = fc.constantFrom<Transform>('redact', 'mask', 'reveal');
const permissions = fc.subarray(PERMISSIONS, { minLength: 1 });
const condition = fc.oneof(
  fc.record({ attribute: fc.constant('container' as const), operator: fc.constantFrom('equals' as const, 'starts_with' as const), value: fc.constantFrom(...CONTAINERS, '/p') }),
  fc.record({ attribute: fc.constant('id' as const), operator: fc.constantFrom('equals' as const, 'starts_with' as const), value: fc.constantFrom(...IDS, 't') }),
);
/** A session grant: rules with conditions, or plain permissions (with or without token:use). */
const grant: fc.Arbitrary<TokenAccess> = fc.oneof(
  fc.record({
    permissions: fc.constant([] as Permission[]),
    rules: fc.array(fc.record({ priority: fc.integer({ min: 1, max: 9 }), conditions: fc.array(condition, { minLength: 1, maxLength: 2 }), transform, permissions }), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ permissions: fc.tuple(permissions, fc.boolean()).map(([p, use]) => (use ? [...p, 'token:use' as Permission] : p)), rules: fc.constant([] as AccessRule[]) }),
);
/** An authorizing private application: container rules, or plain permissions. */
const authorizer: fc.Arbitrary<TokenAccess> = fc.oneof(
  fc.record({
    permissions: fc.constant(['session:authorize' as Permission]),
    rules: fc.array(fc.record({ priority: fc.integer({ min: 1, max: 9 }), container: fc.constantFrom(...CONTAINERS), transform, permissions }), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ permissions: fc.tuple(permissions, fc.boolean()).map(([p, use]) => (use ? [...p, 'token:use' as Permission, 'session:authorize' as Permission] : [...p, 'session:authorize' as Permission])), rules: fc.constant([] as AccessRule[]) }),
);
const token = fc.record({ id: fc.constantFrom(...IDS), containers: fc.subarray(['/pci/high/', '/pii/x/', '/general/', '/pcix/'], { minLength: 1 }) });

describe('boundByAuthorizer', () => {
  it('gives a session, on every token and permission, the lesser of its grant and its authorizer, and nothing where either has nothing', () => {
    fc.assert(
      fc.property(grant, authorizer, fc.array(token, { minLength: 1, maxLength: 5 }), (g, a, tokens) => {
        const bounded = actor(boundByAuthorizer(g, a));
        for (const t of tokens) {
          for (const p of PERMISSIONS) {
            const mine = transformFor(actor(g), p, t);
            const theirs = transformFor(actor(a), p, t);
            const expected = mine && theirs ? (ORDER[mine] <= ORDER[theirs] ? mine : theirs) : undefined;
            expect({ token: t, permission: p, got: transformFor(bounded, p, t) }).toEqual({ token: t, permission: p, got: expected });
          }
        }
      }),
      { seed: 20261124, numRuns: 2000 },
    );
  });

  it('keeps the grant\'s other permissions plain', () => {
    const bounded = boundByAuthorizer({ permissions: ['token:intent:create', 'token:create'], rules: [] }, { permissions: ['token:create', 'session:authorize'], rules: [] });
    expect(bounded.permissions).toEqual(['token:intent:create']);
    expect(bounded.rules).toEqual([{ priority: 1, conditions: [], transform: 'mask', permissions: ['token:create'] }]);
  });
});
