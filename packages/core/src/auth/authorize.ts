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
