/** Injection tokens for the container: one symbol per port or use-case group. */
export const TOKENS = {
  Config: Symbol('Config'),
  Logger: Symbol('Logger'),
  Store: Symbol('Store'),
  Clock: Symbol('Clock'),
  Ids: Symbol('IdGenerator'),
  Random: Symbol('RandomSource'),
  MasterKey: Symbol('MasterKey'),
  Authenticate: Symbol('Authenticate'),
  ApplicationUseCases: Symbol('ApplicationUseCases'),
  CreateTenant: Symbol('CreateTenant'),
  Bootstrap: Symbol('Bootstrap'),
  Sweep: Symbol('Sweep'),
  Expressions: Symbol('ExpressionEngine'),
  Keyring: Symbol('Keyring'),
  TokenUseCases: Symbol('TokenUseCases'),
  SessionUseCases: Symbol('SessionUseCases'),
} as const;
