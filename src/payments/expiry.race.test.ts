// Expiry sweeps of several gateway processes at once (PostgreSQL). Each expired bank-profile payment
// gives its daily volume back through a trigger that locks the merchant's day row; two sweep
// batches at once could lock those rows in opposite orders and deadlock, so sweeps take turns
// under an advisory lock (src/payments/expiry.ts).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import pg from 'pg';
import { EVERYTHING, MerchantClient, basicPayment, useProcesses } from '../testing/harness.ts';
import { untilSessionsWait } from '../testing/locks.ts';
import { describePostgres } from '../testing/postgres-only.ts';
import { SWEEP_LOCK } from './expiry.ts';

const DAY_MS = 86_400_000;

describePostgres('expiry sweeps of two processes [postgres]', () => {
  const ctx = useProcesses(1);

  it('take turns: a sweep waits while another holds the sweep lock', async () => {
    const { t } = ctx;
    const holder = new pg.Client({ connectionString: t.testDb.url! });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [SWEEP_LOCK]);
      let done = false;
      const sweeping = t.gw.services.sweeper.sweep().then(() => (done = true));
      await untilSessionsWait(t.gw.services.db, 1, 'advisory');
      assert.equal(done, false);
      await holder.query('COMMIT');
      await sweeping;
    } finally {
      await holder.end();
    }
  });

  it("do not deadlock on two merchants' day rows taken in opposite orders", async () => {
    const { t } = ctx;
    const second = ctx.others[0]!;
    const [m1, m2] = await Promise.all([0, 1].map(() => MerchantClient.create(t, { ...EVERYTHING, profile: 'bank' })));
    // One after the other, so that the expiry order is the creation order, alternating merchants:
    // the first sweep batch (payments 0-499) begins with m2's payment, the next one with m1's.
    for (let i = 0; i < 1_000; i++) {
      const m = (i % 2 === 0) !== i >= 500 ? m2! : m1!;
      assert.equal((await m.createPayment(basicPayment({ amount: { currency: 'GEL', total: 1 } }))).statusCode, 200);
    }
    for (const clock of [t.clock, second.services.clock]) clock.setOffset(4 * DAY_MS);
    const db = t.gw.services.db;
    const holder = new pg.Client({ connectionString: t.testDb.url! });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM merchant_daily_volume WHERE client_id = ANY ($1) FOR UPDATE`, [
        [m1!.credentials.clientId, m2!.credentials.clientId],
      ]);
      const a = t.gw.services.sweeper.sweep();
      await untilSessionsWait(db, 1);
      const b = second.services.sweeper.sweep();
      await untilSessionsWait(db, 2);
      await holder.query('COMMIT');
      const swept = await Promise.allSettled([a, b]);
      // Before the lock: "deadlock detected" for one of the two (the second process's, as it happened).
      for (const s of swept) assert.equal(s.status, 'fulfilled', s.status === 'rejected' ? String(s.reason) : '');
      assert.equal(
        swept.reduce((n, s) => n + (s as PromiseFulfilledResult<number>).value, 0),
        1_000,
      );
    } finally {
      await holder.end();
    }
  });

  it('expire every payment of many bank-profile merchants and give every daily volume back, with no error', async () => {
    const { t } = ctx;
    const second = ctx.others[0]!;
    const merchants = await Promise.all(
      Array.from({ length: 6 }, () => MerchantClient.create(t, { ...EVERYTHING, profile: 'bank' })),
    );
    // 1,200 payments, the merchants' interleaved in creation (and expiry) order: more than one
    // sweep batch (500), so both processes' sweeps get a share of every merchant's day row.
    for (let round = 0; round < 200; round++) {
      const created = await Promise.all(
        merchants.map((m) => m.createPayment(basicPayment({ amount: { currency: 'GEL', total: 1 } }))),
      );
      for (const res of created) assert.equal(res.statusCode, 200, res.body);
    }
    const ids = merchants.map((m) => m.credentials.clientId);
    const volume = async () =>
      (
        await t.gw.services.db.query<{ total: string }>(
          'SELECT coalesce(sum(total), 0)::text AS total FROM merchant_daily_volume WHERE client_id = ANY ($1)',
          [ids],
        )
      ).rows[0]!.total;
    assert.equal(await volume(), '120000');
    for (const clock of [t.clock, second.services.clock]) clock.setOffset(8 * DAY_MS);
    const swept = await Promise.allSettled([
      t.gw.services.sweeper.sweep(),
      second.services.sweeper.sweep(),
      t.gw.services.sweeper.sweep(),
    ]);
    for (const s of swept) assert.equal(s.status, 'fulfilled', s.status === 'rejected' ? String(s.reason) : '');
    const counts = swept.map((s) => (s as PromiseFulfilledResult<number>).value);
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      1200,
      `expired by each sweep: ${counts.join(', ')}`,
    );
    const { rows } = await t.gw.services.db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM payments WHERE client_id = ANY ($1) GROUP BY status',
      [ids],
    );
    assert.deepEqual(rows, [{ status: 'Expired', n: 1200 }]);
    assert.equal(await volume(), '0');
  });
});
