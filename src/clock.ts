// The one source of time. Everything that depends on time (expiry, token lifetime, business days,
// block windows, callback schedules) asks this clock, so sandbox time travel and tests move it all
// together. The offset is shared by every gateway process through the database (see
// sandbox/clock-store.ts); this class only holds the current value.
//
// A merchant may have a sandbox clock of its own on top (issue 15): `forMerchant(clientId)` is a
// Clock of the same shape whose time is this clock's plus the merchant's offset. Every business-time
// decision about a merchant's payment asks that clock. Merchant clocks are made once per merchant
// and kept (a Map lookup per request, no allocation, one object shape for V8).

export class Clock {
  private offsetMs = 0;
  /** Merchant clocks by client id (the global clock's only; null on a merchant clock). */
  private readonly merchants: Map<string, Clock> | null;

  constructor(
    private readonly source: () => number = Date.now,
    /** The merchant whose clock this is; null for the gateway's global clock. */
    readonly clientId: string | null = null,
    private readonly global: Clock | null = null,
  ) {
    this.merchants = global === null ? new Map() : null;
  }

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

  /** This clock's own offset: the global one on the global clock, the merchant's own on a merchant clock. */
  get offset(): number {
    return this.offsetMs;
  }

  /** How far this clock is ahead of real time (global offset plus, on a merchant clock, the merchant's). */
  get totalOffset(): number {
    return this.global ? this.global.offsetMs + this.offsetMs : this.offsetMs;
  }

  setOffset(ms: number): void {
    this.offsetMs = ms;
  }

  /** The clock of one merchant: this (global) clock plus the merchant's own offset. */
  forMerchant(clientId: string): Clock {
    if (this.global) return this.global.forMerchant(clientId);
    let c = this.merchants!.get(clientId);
    if (c === undefined) {
      c = new Clock(() => this.nowMs(), clientId, this);
      this.merchants!.set(clientId, c);
    }
    return c;
  }

  /** The merchant's own offset (0 for a merchant that never moved its clock). */
  merchantOffset(clientId: string): number {
    return this.global ? this.global.merchantOffset(clientId) : (this.merchants!.get(clientId)?.offsetMs ?? 0);
  }

  /** The global clock (itself, on the global clock). */
  get base(): Clock {
    return this.global ?? this;
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
