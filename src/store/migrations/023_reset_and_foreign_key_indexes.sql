-- A merchant's sandbox reset deletes its payments and everything hanging from them. Each row it
-- deleted had its foreign keys checked in the tables that refer to it, by a column no index led:
-- every payment deleted read all saved cards, every callback delivery all callback attempts, every
-- fault all fault hits, every conformance run all probes; and the reset itself found the simulated
-- acquirer's records and a merchant's probes by reading those tables whole. A reset's cost grew
-- with everything every merchant had ever done in the sandbox (src/store/indexed-reads.test.ts
-- walks a reset with sequential scans priced out, and checks that every foreign key leads an index).
CREATE INDEX saved_cards_pay ON saved_cards (pay_id);
CREATE INDEX callback_attempts_event ON callback_attempts (event_id);
CREATE INDEX sandbox_fault_hits_fault ON sandbox_fault_hits (fault_id);
CREATE INDEX conformance_probes_run ON conformance_probes (run_id);
CREATE INDEX conformance_probes_client ON conformance_probes (client_id);
-- Attempt references are "<payId>.<attempt>" (payments/attempt.ts); the reset deletes by payment.
CREATE INDEX sim_authorisations_payment ON sim_authorisations (split_part(reference, '.', 1));
