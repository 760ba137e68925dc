export * from './sqlite-store';
export * from './sqlite-application.repository';
export * from './sqlite-directory';
export * from './sqlite-token.repository';
export * from './sqlite-data-key.repository';
export * from './sqlite-session.repository';
export * from './sqlite-invitation.repository';
export * from './connection';
