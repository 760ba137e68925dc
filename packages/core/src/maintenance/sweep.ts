import type { Clock } from '../shared/clock';
import type { ApplicationRepository } from '../applications/application.repository';

/** What one sweep removed. */
export interface SweepReport {
  readonly applications: number;
}

/**
 * Erases what time has made dead: expired applications. Reads already treat expired objects as absent, so the
 * sweeper only reclaims storage; running it late or twice is harmless.
 */
export class Sweep {
  constructor(private readonly deps: { readonly applications: ApplicationRepository; readonly clock: Clock }) {}

  async execute(): Promise<SweepReport> {
    const now = this.deps.clock.now();
    return { applications: await this.deps.applications.deleteExpired(now) };
  }
}
