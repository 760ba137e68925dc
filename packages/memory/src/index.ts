export * from './in-memory-store';
export * from './in-memory-application.repository';
export * from './in-memory-directory';
