// The one source of time. Everything that depends on time (expiry, token lifetime, business days,
// block windows, callback schedules) asks this clock, so sandbox time travel and tests move it all
// together. The offset is shared by every gateway process through the database (see
// sandbox/clock-store.ts); this class only holds the current value.

export class Clock {
  private offsetMs = 0;

  constructor(private readonly source: () => number = Date.now) {}

  now(): Date {
    return new Date(this.nowMs());
  }

  nowMs(): number {
    return this.source() + this.offsetMs;
  }

  /** Unix seconds, as JWTs use them. */
  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  get offset(): number {
    return this.offsetMs;
  }

  setOffset(ms: number): void {
    this.offsetMs = ms;
  }
}
