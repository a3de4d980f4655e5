-- A sandbox of the merchant's own (issue 15): each merchant has its own clock offset on top of the
-- gateway's (sandbox time travel by one CI job must not move another's payments). Business time of
-- a merchant's payment = real time + the global offset (settings.clock_offset_ms) + this offset.
-- Only ever grows (the sandbox clock never goes back); always 0 in production.
ALTER TABLE merchants ADD COLUMN clock_offset_ms bigint NOT NULL DEFAULT 0 CHECK (clock_offset_ms >= 0);
