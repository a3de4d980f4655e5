// Background jobs run on timers of their own: a reconciler stuck on a slow acquirer does not hold
// up expiry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AcquirerResult } from './acquirer/acquirer.ts';
import { BACKENDS } from './testing/databases.ts';
import { MerchantClient, basicPayment, createPaid, startTestGateway } from './testing/harness.ts';

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const backend of BACKENDS) {
  describe(`background jobs [${backend}]`, () => {
    it('expires payments while the reconciler waits on an acquirer that does not answer', {
      timeout: 60_000,
    }, async () => {
      const t = await startTestGateway(
        backend,
        { KARIBCHE_SWEEP_INTERVAL_MS: '50', KARIBCHE_RECONCILE_AFTER_SECONDS: '1' },
        { background: true },
      );
      const acq = t.gw.services.acquirer;
      const original = acq.status.bind(acq);
      let release!: () => void;
      const hung = new Promise<void>((r) => (release = r));
      let asked = 0;
      acq.status = async (reference: string): Promise<AcquirerResult> => {
        asked++;
        await hung;
        return original(reference);
      };
      try {
        const m = await MerchantClient.create(t);
        // The no-answer card leaves its payment Processing: the reconciler asks the (now hanging) acquirer.
        const stuck = await createPaid(t, m, {}, '4000000000000770');
        await t.gw.services.sharedClock.advance(2);
        await until('the reconciler to ask the acquirer', async () => asked > 0);
        const due = (await m.createPayment(basicPayment({ expirationMinutes: 1 }))).json().payId as string;
        await t.gw.services.sharedClock.advance(61);
        const expired = await until('the expiry job', async () => {
          const { rows } = await t.gw.services.db.query<{ status: string }>(
            `SELECT status FROM payment_events WHERE pay_id = $1`,
            [due],
          );
          return rows.some((r) => r.status === 'Expired');
        });
        assert.ok(expired);
        const { rows } = await t.gw.services.db.query<{ status: string }>(
          'SELECT status FROM payments WHERE pay_id = $1',
          [stuck],
        );
        assert.equal(rows[0]!.status, 'Processing', 'the reconciler is still waiting');
      } finally {
        release();
        acq.status = original;
        await t.close();
      }
    });

    it('logs a programming error in an acquirer call as a bug (not as no answer), keeps the payment for the next round, and expiry goes on', {
      timeout: 60_000,
    }, async () => {
      const lines: Record<string, unknown>[] = [];
      const logStream = { write: (line: string) => void lines.push(JSON.parse(line)) };
      const t = await startTestGateway(
        backend,
        { KARIBCHE_SWEEP_INTERVAL_MS: '50', KARIBCHE_RECONCILE_AFTER_SECONDS: '1', LOG_LEVEL: 'info' },
        { background: true, logStream },
      );
      const acq = t.gw.services.acquirer;
      const original = acq.status.bind(acq);
      acq.status = async (): Promise<AcquirerResult> => {
        throw new TypeError("Cannot read properties of undefined (reading 'status')");
      };
      try {
        const m = await MerchantClient.create(t);
        const stuck = await createPaid(t, m, {}, '4000000000000770');
        await t.gw.services.sharedClock.advance(2);
        const bug = await until('the reconciler to log the bug', async () =>
          lines.find((l) => l.event === 'payment.reconciled' && l.outcome === 'failed'),
        );
        assert.equal(bug.level, 50, 'logged at error level');
        assert.equal((bug.err as { type: string }).type, 'TypeError');
        assert.equal(
          lines.some((l) => l.payId === stuck && /did not answer/.test(String(l.msg))),
          false,
          'not taken for a lost answer',
        );
        const due = (await m.createPayment(basicPayment({ expirationMinutes: 1 }))).json().payId as string;
        await t.gw.services.sharedClock.advance(61);
        await until(
          'the expiry job',
          async () =>
            (await t.gw.services.db.query<{ status: string }>('SELECT status FROM payments WHERE pay_id = $1', [due]))
              .rows[0]!.status === 'Expired',
        );
        const { rows } = await t.gw.services.db.query<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM payments WHERE pay_id = $1',
          [stuck],
        );
        assert.deepEqual(rows[0], { status: 'Processing', attempts: 1 }, 'left for the next round, not declined');
        // Once the connector is fixed, the next round settles it.
        acq.status = original;
        await until(
          'the reconciler to settle it',
          async () =>
            (await t.gw.services.db.query<{ status: string }>('SELECT status FROM payments WHERE pay_id = $1', [stuck]))
              .rows[0]!.status === 'Succeeded',
        );
      } finally {
        acq.status = original;
        await t.close();
      }
    });
  });
}
