export * from './config/config';
export * from './config/load-config';
export * from './container';
export * from './http/app';
export * from './server';
export * from './logger';
export * from './tokens';
