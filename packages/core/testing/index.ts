export * from './fixed-clock';
export * from './sequential-ids';
export * from './builders';
export * from './store-contract';
export * from './sequence-random-source';
export * from './recording-mailer';
export { OTHER_SEARCH_TENANT, SEARCH_NOW, SEARCH_TENANT, searchCorpus } from './contracts/search.contract';
export { describeSearchContract } from './contracts/search.contract';
export { SEARCH_CASES } from './contracts/search.contract';
