export type { DateBounds, DateQueryField, TermQueryField, TokenQuery } from './token-query';
export { MAX_QUERY_LENGTH, parseTokenQuery } from './parse-query';
export { accessScope, andAll } from './access-scope';
export { blindQuery } from './blind-query';
export { matchesQuery } from './token-predicate';
