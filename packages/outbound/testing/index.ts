export * from './test-ca';
export * from './test-server';
