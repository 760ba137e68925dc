/** The operations of the soak's mix (soak-driver.ts), and how their answers are counted. */
export const OPERATIONS = ['create', 'read', 'update', 'search', 'tokenize', 'detokenize', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Counts of one operation over some span; every request is exactly one of ok, non-2xx and error. */
export interface OperationCounts {
  /** Answered with the expected status (and, for a search, the expected total). */
  ok: number;
  /** Answered 5xx (also counted in `non2xx`). */
  status5xx: number;
  /** Answered anything but 2xx. */
  non2xx: number;
  /** No answer (connection error, timeout), or a 2xx with the wrong status or content. */
  errors: number;
}

/** Counts per operation. */
export type Tally = Record<Operation, OperationCounts>;

const FIELDS = ['ok', 'status5xx', 'non2xx', 'errors'] as const;

export function zeroTally(): Tally {
  return Object.fromEntries(OPERATIONS.map((op) => [op, { ok: 0, status5xx: 0, non2xx: 0, errors: 0 }])) as Tally;
}

/** Adds `tally` into `into`, and returns `into`. */
export function addTally(into: Tally, tally: Readonly<Tally>): Tally {
  for (const op of OPERATIONS) for (const field of FIELDS) into[op][field] += tally[op][field];
  return into;
}

/** The tallies added up into a new one. */
export function sumTallies(tallies: ReadonlyArray<Readonly<Tally>>): Tally {
  return tallies.reduce<Tally>((sum, tally) => addTally(sum, tally), zeroTally());
}

/** Requests of one operation. */
export const requestsOf = (counts: Readonly<OperationCounts>): number => counts.ok + counts.non2xx + counts.errors;

/** Requests of every operation. */
export function requestsIn(tally: Readonly<Tally>): number {
  return OPERATIONS.reduce((n, op) => n + requestsOf(tally[op]), 0);
}

/** Every operation's counts added up. */
export function allOperations(tally: Readonly<Tally>): OperationCounts {
  const sum = { ok: 0, status5xx: 0, non2xx: 0, errors: 0 };
  for (const op of OPERATIONS) for (const field of FIELDS) sum[field] += tally[op][field];
  return sum;
}
