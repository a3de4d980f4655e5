// What an operator reads: every status change, refund and completion, failed callback and reconciler
// action as a structured log line (with the request id when a request caused it), and business
// metrics: payments by status, method and resultCode, operations, acquirer latency and outcomes,
// idempotency conflicts and the callback backlog.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { reconcile } from '../payments/reconciler.ts';
import { MerchantClient, basicPayment, createPaid, startTestGateway } from '../testing/harness.ts';

interface Line {
  msg: string;
  level?: number;
  event?: string;
  reqId?: string;
  [k: string]: unknown;
}

for (const backend of BACKENDS) {
  describe(`business events in logs and metrics [${backend}]`, () => {
    it('logs and counts status changes, operations, failed callbacks and conflicts', async () => {
      const lines: Line[] = [];
      const t = await startTestGateway(
        backend,
        { LOG_LEVEL: 'info', KARIBCHE_CALLBACK_TIMEOUT_MS: '5000' },
        { logStream: { write: (l: string) => void lines.push(JSON.parse(l)) } },
      );
      try {
        const m = await MerchantClient.create(t);
        // A card payment, refunded; its callback goes to an address where nothing listens.
        const id = await createPaid(t, m, { callbackUrl: 'http://127.0.0.1:9/callbacks' });
        const refund = await m.post(`/v1/gateway/payments/${id}/cancel`, { amount: 4 });
        assert.equal(refund.statusCode, 200, refund.body);
        await t.gw.services.callbacks.drain();
        // An idempotency conflict: the same key with another body.
        await m.createPayment(basicPayment(), { 'Idempotency-Key': 'k-1' });
        assert.equal(
          (await m.createPayment(basicPayment({ description: 'other' }), { 'Idempotency-Key': 'k-1' })).statusCode,
          422,
        );

        const changes = lines
          .filter((l) => l.event === 'payment.status' && l.payId === id)
          .map((l) => [l.from, l.to, l.method, l.resultCode]);
        assert.deepEqual(changes, [
          ['Created', 'Processing', 5, null],
          ['Processing', 'Succeeded', 5, 'approved'],
          ['Succeeded', 'CancelPaymentProcessing', 5, 'approved'],
          ['CancelPaymentProcessing', 'PartialReturned', 5, 'approved'],
        ]);
        const refundLine = lines.find((l) => l.event === 'payment.operation' && l.payId === id)!;
        assert.deepEqual(
          [refundLine.kind, refundLine.amount, refundLine.outcome, refundLine.status],
          ['refund', 400, 'done', 'PartialReturned'],
        );
        const refundRequest = lines.find(
          (l) => l.msg === 'request completed' && String((l.req as { url?: string })?.url).endsWith('/cancel'),
        );
        assert.ok(
          refundRequest?.reqId && refundLine.reqId === refundRequest.reqId,
          'the refund line carries its request id',
        );
        const failed = lines.find((l) => l.event === 'callback.failed' && l.payId === id)!;
        assert.ok(failed, 'a failed callback attempt is logged');
        assert.equal(failed.clientId, m.credentials.clientId);
        assert.match(String(failed.error), /ECONNREFUSED/);

        const metrics = (await t.app.inject('/metrics')).body;
        assert.match(
          metrics,
          /karibche_payment_status_changes_total\{to="Succeeded",method="5",result_code="approved"\} 1/,
        );
        assert.match(
          metrics,
          /karibche_payment_status_changes_total\{to="PartialReturned",method="5",result_code="approved"\} 1/,
        );
        assert.match(metrics, /karibche_payment_operations_total\{kind="refund",outcome="done"\} 1/);
        assert.match(metrics, /karibche_acquirer_call_duration_seconds_count\{call="authorise",outcome="approved"\} 1/);
        assert.match(metrics, /karibche_acquirer_call_duration_seconds_count\{call="refund",outcome="ok"\} 1/);
        assert.match(metrics, /karibche_idempotency_conflicts_total\{kind="mismatch"\} 1/);
        assert.match(metrics, /karibche_callbacks_pending 2/);
        assert.match(metrics, /karibche_callbacks_failing 2/);
        assert.match(metrics, /karibche_callbacks_oldest_pending_seconds \d/);
        assert.match(metrics, /karibche_callback_attempts_total\{outcome="retry"\} 2/);
      } finally {
        await t.close();
      }
    });
  });
}

for (const backend of BACKENDS) {
  describe(`reconciler actions in logs and metrics [${backend}]`, () => {
    it('logs each payment it settles (payId, clientId, from, to, outcome) once, though two reconcilers run at once', async () => {
      const lines: Line[] = [];
      const t = await startTestGateway(
        backend,
        { LOG_LEVEL: 'debug' },
        { logStream: { write: (l: string) => void lines.push(JSON.parse(l)) } },
      );
      try {
        const m = await MerchantClient.create(t);
        const s = t.gw.services;
        // An authorisation the acquirer never answered, and a refund whose answer was lost.
        const unanswered = (await m.createPayment(basicPayment())).json().payId as string;
        assert.equal(
          (await t.admin('POST', `/sandbox/v1/payments/${unanswered}/simulate`, { card: '4000000000000770' })).json()
            .status,
          'Processing',
        );
        const refunded = await createPaid(t, m, {}, '4000000000005126');
        assert.equal((await m.post(`/v1/gateway/payments/${refunded}/cancel`, {})).statusCode, 503);
        const reconciled = () => lines.filter((l) => l.event === 'payment.reconciled');

        await reconcile(s);
        assert.deepEqual(reconciled(), [], 'nothing is due before KARIBCHE_RECONCILE_AFTER_SECONDS');
        await s.sharedClock.advance(s.config.reconcileAfterSeconds + 1);
        await Promise.all([reconcile(s), reconcile(s)]);

        const settled = reconciled()
          .filter((l) => l.outcome === 'settled')
          .map((l) => [l.payId, l.clientId, l.kind, l.from, l.to, l.level]);
        assert.deepEqual(
          settled.sort(),
          [
            [refunded, m.credentials.clientId, 'operation', 'CancelPaymentProcessing', 'Returned', 30],
            [unanswered, m.credentials.clientId, 'attempt', 'Processing', 'Succeeded', 30],
          ].sort(),
        );
        // Whatever the other reconciler saw, it did not claim the change.
        for (const l of reconciled())
          assert.ok(['settled', 'settled_elsewhere'].includes(String(l.outcome)), JSON.stringify(l));
        // The same change, as the status line every change writes.
        for (const [payId, , , from, to] of settled) {
          assert.equal(
            lines.filter((l) => l.event === 'payment.status' && l.payId === payId && l.from === from && l.to === to)
              .length,
            1,
          );
        }
        const metrics = (await t.app.inject('/metrics')).body;
        assert.match(metrics, /karibche_reconciler_payments_total\{kind="attempt",outcome="settled"\} 1/);
        assert.match(metrics, /karibche_reconciler_payments_total\{kind="operation",outcome="settled"\} 1/);

        // A payment still without an answer is logged at debug (asked again every round), and counted.
        const again = (await m.createPayment(basicPayment())).json().payId as string;
        await t.admin('POST', `/sandbox/v1/payments/${again}/simulate`, { card: '4000000000003220' }); // a 3-D Secure challenge left open
        await s.sharedClock.advance(s.config.reconcileAfterSeconds + 1);
        await reconcile(s);
        const open = reconciled().filter((l) => l.payId === again);
        assert.deepEqual(
          open.map((l) => [l.outcome, l.from, l.to, l.level]),
          [['unresolved', 'Processing', 'Processing', 20]],
        );
      } finally {
        await t.close();
      }
    });
  });
}

describe('the Grafana dashboard (docs/grafana-dashboard.json)', () => {
  it('queries only metrics the gateway exports', async () => {
    const fs = await import('node:fs');
    const dash = JSON.parse(fs.readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const t = await startTestGateway(BACKENDS[0]!);
    try {
      const m = await MerchantClient.create(t);
      await createPaid(t, m);
      const exported = new Set(
        [...(await t.app.inject('/metrics')).body.matchAll(/^# TYPE (\w+) (\w+)/gm)].flatMap(([, name, type]) =>
          type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name!],
        ),
      );
      let queried = 0;
      for (const p of dash.panels) {
        for (const { expr } of p.targets) {
          for (const name of expr.match(/\bkaribche_\w+/g) ?? []) {
            queried++;
            assert.ok(exported.has(name), `${p.title}: ${name} is not exported`);
          }
        }
      }
      assert.ok(
        dash.panels.length >= 12 && queried >= 20,
        `${dash.panels.length} panels, ${queried} metric references`,
      );
    } finally {
      await t.close();
    }
  });
});
