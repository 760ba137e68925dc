export * from './undici-outbound-http';
export * from './dns-host-resolver';
