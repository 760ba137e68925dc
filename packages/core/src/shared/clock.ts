/** The time port. Core never reads the system clock directly, so expiry is testable without waiting. */
export interface Clock {
  now(): Date;
}

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}
