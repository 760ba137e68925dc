/** Every permission the vault knows. */
export const PERMISSIONS = [
  'token:create',
  'token:read',
  'token:update',
  'token:delete',
  'token:search',
  'token:use',
  'token:intent:create',
  'token:intent:read',
  'token:intent:delete',
  'session:create',
  'session:authorize',
  'tenant:read',
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
  'log:read',
  'webhook:create',
  'webhook:read',
  'webhook:update',
  'webhook:delete',
  'proxy:create',
  'proxy:read',
  'proxy:update',
  'proxy:delete',
  'proxy:invoke',
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

/** Token intents: kept apart from the token permissions, which access rules and sessions are about. */
export const TOKEN_INTENT_PERMISSIONS: readonly Permission[] = ['token:intent:create', 'token:intent:read', 'token:intent:delete'];

const MANAGEMENT_PREFIXES = ['application:', 'tenant:', 'log:', 'webhook:'];

/** Everything that manages the tenant rather than its tokens: the bootstrap management application holds them all. */
export const MANAGEMENT_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter(
  (p) => MANAGEMENT_PREFIXES.some((prefix) => p.startsWith(prefix)) || (p.startsWith('proxy:') && p !== 'proxy:invoke'),
);

/** The permission catalogue: which permissions each application type may hold. */
export const PERMISSIONS_BY_TYPE: Readonly<Record<ApplicationType, readonly Permission[]>> = {
  private: [...TOKEN_PERMISSIONS, ...TOKEN_INTENT_PERMISSIONS, 'session:authorize', 'proxy:invoke'],
  public: ['token:create', 'token:update', 'token:intent:create', 'session:create'],
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

/** What each permission allows, in words: the catalogue `GET /permissions` lists, from the same source as the rules. */
export const PERMISSION_DESCRIPTIONS: Readonly<Record<Permission, string>> = {
  'token:create': 'Create tokens.',
  'token:read': 'Read tokens, with data masked unless a rule reveals it.',
  'token:update': 'Update tokens.',
  'token:delete': 'Delete tokens.',
  'token:search': 'Search tokens.',
  'token:use': 'Read tokens with their data revealed.',
  'token:intent:create': 'Create token intents: card or bank data held for 24 hours until a token is made from it.',
  'token:intent:read': 'Read token intents (never their full number).',
  'token:intent:delete': 'Delete token intents.',
  'session:create': 'Create sessions for the browser or mobile client of a public application.',
  'session:authorize': 'Grant permissions or access rules to a session.',
  'tenant:read': 'Read the tenant.',
  'tenant:member:read': 'List the members of the tenant.',
  'tenant:member:delete': 'Remove members from the tenant.',
  'tenant:invitation:create': 'Invite people to the tenant.',
  'tenant:invitation:read': 'Read invitations to the tenant.',
  'tenant:invitation:update': 'Resend invitations to the tenant.',
  'tenant:invitation:delete': 'Delete invitations to the tenant.',
  'application:create': 'Create applications.',
  'application:read': 'Read applications.',
  'application:update': 'Update applications and regenerate their keys.',
  'application:delete': 'Delete applications.',
  'log:read': 'Read the audit log.',
  'webhook:create': 'Create webhooks.',
  'webhook:read': 'Read webhooks and their deliveries.',
  'webhook:update': 'Update webhooks.',
  'webhook:delete': 'Delete webhooks.',
  'proxy:create': 'Create pre-configured proxies.',
  'proxy:read': 'Read pre-configured proxies.',
  'proxy:update': 'Update pre-configured proxies.',
  'proxy:delete': 'Delete pre-configured proxies.',
  'proxy:invoke': 'Call destinations through the proxy, with tokens detokenized on the way out.',
};

/** One entry of the permission catalogue. */
export interface PermissionEntry {
  readonly type: Permission;
  readonly description: string;
  readonly applicationTypes: readonly ApplicationType[];
}

/** The catalogue: every permission, what it allows and which application types may hold it; one type's when given. */
export function permissionCatalogue(applicationType?: ApplicationType): readonly PermissionEntry[] {
  return PERMISSIONS.map((type) => ({
    type,
    description: PERMISSION_DESCRIPTIONS[type],
    applicationTypes: APPLICATION_TYPES.filter((t) => PERMISSIONS_BY_TYPE[t].includes(type)),
  })).filter((entry) => applicationType === undefined || entry.applicationTypes.includes(applicationType));
}
