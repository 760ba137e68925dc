export * from './sqlite-store';
export * from './sqlite-application.repository';
export * from './sqlite-directory';
