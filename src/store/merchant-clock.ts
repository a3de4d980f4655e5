// SQL for the merchants' own sandbox clocks (issue 15, migration 019): a payment's business time is
// the global clock's time passed in as a parameter plus its merchant's `clock_offset_ms`.

/** A merchant's own sandbox clock offset as an interval (`alias` names its merchants row). */
export const MERCHANT_OFFSET = (alias: string) => `${alias}.clock_offset_ms * interval '1 millisecond'`;

/** The largest merchant clock offset as an interval: an outer bound that keeps time indexes usable. */
export const MAX_MERCHANT_OFFSET = `(SELECT coalesce(max(clock_offset_ms), 0) FROM merchants) * interval '1 millisecond'`;
