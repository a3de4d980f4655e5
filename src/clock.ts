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

const formats = new Map<string, Intl.DateTimeFormat>();

/** A cached Intl.DateTimeFormat: building one costs ~50 µs, far more than formatting with it. */
export function dateFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.DateTimeFormat(locale, options)));
  return f;
}
