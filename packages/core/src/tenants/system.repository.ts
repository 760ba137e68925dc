/** Store-wide flags that must be set exactly once, even with several processes on one store. */
export interface SystemRepository {
  /** Atomically claims `name`; true for the single caller that claimed it first, false for everyone after. */
  claimOnce(name: string): Promise<boolean>;
  /** Gives a claim back, for a claimant whose work failed, so that the next one can try again. */
  release(name: string): Promise<void>;
}
