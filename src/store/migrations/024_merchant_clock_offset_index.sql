-- The largest merchant clock offset (src/store/merchant-clock.ts, MAX_MERCHANT_OFFSET) bounds every
-- time-driven scan: each callback claim, each expiry and recovery sweep. It read the merchants
-- table whole every time — 0.61 ms a claim with 5,000 merchants on PostgreSQL 15, where the
-- payments' own work is tens of microseconds (issue 25). With this index max() reads one entry
-- (0.016 ms at 5,000), and the sandbox clocks' load at start (offsets above 0) reads only those.
CREATE INDEX merchants_clock_offset ON merchants (clock_offset_ms);
