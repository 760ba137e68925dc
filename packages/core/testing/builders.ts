import type { StoredToken } from '../src/tokens/token';
import type { Application } from '../src/applications/application';
import type { ApplicationKey } from '../src/applications/application-key';
import type { AccessRule } from '../src/access/access-rule';
import type { ApplicationType, Permission } from '../src/access/permissions';
import type { Actor } from '../src/auth/actor';
import { hashKey } from '../src/auth/api-key';

let sequence = 0;
const nextId = (): string => {
  sequence += 1;
  return `aaaaaaaa-0000-4000-8000-${sequence.toString(16).padStart(12, '0')}`;
};

/** Test-data builder: `anApplication().ofType('private').withPermissions('token:read').build()`. */
export class ApplicationBuilder {
  private value: Application;

  constructor() {
    this.value = {
      id: nextId(),
      tenantId: 'tttttttt-0000-4000-8000-000000000001',
      name: 'An application',
      type: 'management',
      permissions: ['application:read'],
      rules: [],
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
    };
  }

  with(patch: Partial<Application>): this {
    this.value = { ...this.value, ...patch };
    return this;
  }

  inTenant(tenantId: string): this {
    return this.with({ tenantId });
  }

  ofType(type: ApplicationType): this {
    return this.with({ type });
  }

  withPermissions(...permissions: Permission[]): this {
    return this.with({ permissions });
  }

  withRules(...rules: AccessRule[]): this {
    return this.with({ rules });
  }

  createdAt(at: Date | string): this {
    return this.with({ createdAt: new Date(at) });
  }

  expiringAt(at: Date | string): this {
    return this.with({ expiresAt: new Date(at) });
  }

  build(): Application {
    return this.value;
  }
}

export const anApplication = (): ApplicationBuilder => new ApplicationBuilder();

/** Test-data builder for a key of an application: `aKeyOf(app).withKey('key_a').build()`; any key by default. */
export class ApplicationKeyBuilder {
  private value: ApplicationKey;

  constructor(application: Application) {
    this.value = {
      id: nextId(),
      tenantId: application.tenantId,
      applicationId: application.id,
      keyHash: hashKey(`key_mgt_${nextId()}`),
      createdAt: application.createdAt,
    };
  }

  with(patch: Partial<ApplicationKey>): this {
    this.value = { ...this.value, ...patch };
    return this;
  }

  /** The plaintext key; only its hash is kept. */
  withKey(key: string): this {
    return this.with({ keyHash: hashKey(key) });
  }

  createdAt(at: Date | string): this {
    return this.with({ createdAt: new Date(at) });
  }

  build(): ApplicationKey {
    return this.value;
  }
}

export const aKeyOf = (application: Application): ApplicationKeyBuilder => new ApplicationKeyBuilder(application);

/** An actor holding the given plain permissions, as an application of `tenantId`. */
export function anActor(tenantId: string, permissions: Permission[], type: ApplicationType = 'management'): Actor {
  return { tenantId, kind: 'application', applicationId: nextId(), applicationType: type, permissions, rules: [], authorized: true };
}

let tokenSequence = 0;

/** Test-data builder for sealed tokens as stores keep them. */
export class StoredTokenBuilder {
  private value: StoredToken;

  constructor() {
    tokenSequence += 1;
    this.value = {
      id: `token-${tokenSequence}`,
      tenantId: 'tttttttt-0000-4000-8000-000000000001',
      type: 'token',
      containers: ['/general/high/'],
      metadata: {},
      fingerprintExpression: '{{ data | stringify }}',
      fingerprint: `fp${tokenSequence}`,
      createdBy: 'aaaaaaaa-0000-4000-8000-000000000001',
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
      sealedData: Uint8Array.from([1, 2, 3, tokenSequence % 256]),
      indexHashes: [],
      version: 0,
    };
  }

  with(patch: Partial<StoredToken>): this {
    this.value = { ...this.value, ...patch };
    return this;
  }

  inTenant(tenantId: string): this {
    return this.with({ tenantId });
  }

  inContainer(container: string): this {
    return this.with({ containers: [container] });
  }

  createdAt(at: Date | string): this {
    return this.with({ createdAt: new Date(at) });
  }

  build(): StoredToken {
    return this.value;
  }
}

export const aStoredToken = (): StoredTokenBuilder => new StoredTokenBuilder();
