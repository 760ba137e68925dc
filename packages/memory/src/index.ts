export * from './in-memory-store';
export * from './in-memory-application.repository';
export * from './in-memory-directory';
export * from './in-memory-token.repository';
export * from './token-predicate';
export * from './in-memory-session.repository';
export * from './in-memory-invitation.repository';
export * from './in-memory-token-intent.repository';
