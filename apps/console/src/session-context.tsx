import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError, call } from './api';

/** An application as `GET /applications/key` and `GET /applications/:id` show it. */
export interface Application {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly type: 'private' | 'public' | 'management';
  readonly key?: string;
  readonly permissions: readonly string[];
  readonly rules: readonly Rule[];
  readonly created_by?: string;
  readonly created_at?: string;
  readonly modified_by?: string;
  readonly modified_at?: string;
  readonly expires_at?: string;
}

export interface Rule {
  readonly description?: string;
  readonly priority: number;
  readonly container?: string;
  readonly transform: string;
  readonly permissions: readonly string[];
}

export type ApplicationType = Application['type'];

/**
 * Who a key is: its application and tenant when the key may read its own application (`GET /applications/key` needs
 * `application:read`, which management keys hold and private and public keys cannot), else only the type its prefix
 * names (`key_pvt_…`); the tenant's name when the key may also read the tenant.
 */
export interface Identity {
  readonly type: ApplicationType | undefined;
  readonly app?: Application | undefined;
  readonly tenant?: { readonly id: string; readonly name?: string } | undefined;
}

/** A key and who it is. */
export interface KeyHolder {
  readonly key: string;
  readonly identity: Identity;
}

export interface Session {
  readonly key: string;
  readonly identity: Identity;
  /** The key the token pages use: the signed-in key unless it is a management key, else the token key given. */
  readonly tokens?: KeyHolder | undefined;
  readonly setTokenKey: (holder: KeyHolder | undefined) => void;
  /** The signed-in application's new key (after a regenerate, which revoked the old one): the console goes on with it. */
  readonly replaceKey: (key: string) => void;
  readonly signOut: () => void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('no session');
  return session;
}

/** The API with the signed-in key. */
export function useApi(): <T>(method: string, path: string, body?: unknown) => Promise<T> {
  const { key } = useSession();
  return (method, path, body) => call(key, method, path, body);
}

const PREFIXES: ReadonlyArray<readonly [string, ApplicationType]> = [
  ['key_pvt_', 'private'],
  ['key_pub_', 'public'],
  ['key_mgt_', 'management'],
];

/** The application type a key's prefix names; keys chosen by an operator (SVC_BOOTSTRAP_API_KEY) have none. */
const typeOfKey = (key: string): ApplicationType | undefined => PREFIXES.find(([prefix]) => key.startsWith(prefix))?.[1];

/**
 * Resolves a key to who it is; rejects with the API's problem (401 for a key that does not work). A 403 from
 * `GET /applications/key` still proves the key authenticates: it is the permission that is missing, not the key.
 */
export async function identify(key: string): Promise<Identity> {
  let app: Application;
  try {
    app = await call<Application>(key, 'GET', '/applications/key');
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return { type: typeOfKey(key) };
    throw error;
  }
  let tenant: NonNullable<Identity['tenant']> = { id: app.tenant_id };
  if (app.permissions.includes('tenant:read')) {
    try {
      const self = await call<{ id: string; name: string }>(key, 'GET', '/tenants/self');
      tenant = { id: self.id, name: self.name };
    } catch {
      // The tenant's id from the application is still right; its name is a nicety.
    }
  }
  return { type: app.type, app, tenant };
}
