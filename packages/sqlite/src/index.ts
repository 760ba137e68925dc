export * from './sqlite-store';
export * from './sqlite-application.repository';
export * from './sqlite-directory';
export * from './sqlite-token.repository';
export * from './sqlite-data-key.repository';
