import { ForbiddenError } from '../shared/errors';
import type { Permission } from '../access/permissions';
import type { Actor } from './actor';

/**
 * Checks a permission for an operation that is not about token data (applications, members, sessions).
 * Plain permissions grant these; access rules grant only token access.
 */
export function requirePermission(actor: Actor, ...permissions: Permission[]): void {
  if (!actor.authorized) throw new ForbiddenError('The session has not been authorized.');
  for (const permission of permissions) {
    if (!actor.permissions.includes(permission)) {
      throw new ForbiddenError(`The API key lacks the '${permission}' permission.`);
    }
  }
}

/**
 * A management application's permissions are what a key to it can do: a caller may create one, change one, or get a
 * key to one only with every permission it holds, or it could raise its own (a key with `application:create` minting
 * one with `log:read`, a key with `application:update` regenerating the bootstrap application's key).
 */
export function requireHeld(actor: Actor, target: { readonly type: string; readonly permissions: readonly string[] }): void {
  if (target.type !== 'management') return;
  const missing = target.permissions.find((p) => !actor.permissions.includes(p as Permission));
  if (missing !== undefined) {
    throw new ForbiddenError(`A management application may hold '${missing}' only if the API key granting it holds it too.`);
  }
}
