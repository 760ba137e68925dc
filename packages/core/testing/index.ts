export * from './fixed-clock';
export * from './sequential-ids';
export * from './builders';
export * from './store-contract';
export * from './sequence-random-source';
export * from './recording-mailer';
