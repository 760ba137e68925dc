import type { Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Keyring } from '../crypto/keyring';
import type { ExpressionEngine } from '../expressions';
import type { TokenRepository } from './token.repository';
import type { TokenPolicy } from './token-view';
import type { Audit } from '../audit/audit';

/** What every token use case works with. */
export interface TokenDeps {
  readonly tokens: TokenRepository;
  readonly keyring: Keyring;
  readonly expressions: ExpressionEngine;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly policy: TokenPolicy;
  /** Records what callers do (ADR 4); absent in unit tests of other rules. */
  readonly audit?: Audit | undefined;
}
