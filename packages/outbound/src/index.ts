export * from './undici-outbound-http';
