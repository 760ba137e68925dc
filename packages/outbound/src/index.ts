export * from './undici-outbound-http';
export * from './dns-host-resolver';
export * from './lookup-gate';
export * from './system-lookup';
