/** Every permission the vault knows. */
export const PERMISSIONS = [
  'token:create',
  'token:read',
  'token:update',
  'token:delete',
  'token:search',
  'token:use',
  'session:create',
  'session:authorize',
  'tenant:member:read',
  'tenant:member:delete',
  'tenant:invitation:create',
  'tenant:invitation:read',
  'tenant:invitation:update',
  'tenant:invitation:delete',
  'application:create',
  'application:read',
  'application:update',
  'application:delete',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const APPLICATION_TYPES = ['private', 'public', 'management'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

export const TOKEN_PERMISSIONS: readonly Permission[] = [
  'token:create',
  'token:read',
  'token:update',
  'token:delete',
  'token:search',
  'token:use',
];

export const MANAGEMENT_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter(
  (p) => p.startsWith('application:') || p.startsWith('tenant:'),
);

/** The permission catalogue: which permissions each application type may hold. */
export const PERMISSIONS_BY_TYPE: Readonly<Record<ApplicationType, readonly Permission[]>> = {
  private: [...TOKEN_PERMISSIONS, 'session:authorize'],
  public: ['token:create', 'token:update', 'session:create'],
  management: MANAGEMENT_PERMISSIONS,
};

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

export function isApplicationType(value: string): value is ApplicationType {
  return (APPLICATION_TYPES as readonly string[]).includes(value);
}

export function isTokenPermission(permission: Permission): boolean {
  return TOKEN_PERMISSIONS.includes(permission);
}
