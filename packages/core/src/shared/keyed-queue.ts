/**
 * Runs asynchronous work one at a time per key, in the order it was queued; work under different keys runs freely.
 * A failure is its caller's alone: the next work of the key still runs.
 *
 * This is state in a process, which use cases otherwise never hold. The invitation use cases need it because a
 * change to an invitation is two writes that no store transaction spans: its row, then the kept copy of its e-mail
 * (the development outbox). Run side by side, a delete's withdrawal can land before a resend's file, or two resends'
 * files can land in the opposite order of their rows, leaving a file whose link is dead while the working link has no
 * file. Queued per invitation, each change finishes both writes before the next begins. It covers one process only:
 * deployments that run several (MongoDB) send over SMTP, where nothing is kept.
 */
export class KeyedQueue {
  /** The settled end of each key's queue; a key leaves the map once its queue has drained. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Whether work of `key` is running or queued: new work of that key would wait. */
  isBusy(key: string): boolean {
    return this.tails.has(key);
  }
}
