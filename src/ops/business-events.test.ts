// What an operator reads: every status change, refund and completion, failed callback and reconciler
// action as a structured log line (with the request id when a request caused it), and business
// metrics: payments by status, method and resultCode, operations, acquirer latency and outcomes,
// idempotency conflicts and the callback backlog.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, basicPayment, createPaid, startTestGateway } from '../testing/harness.ts';

interface Line {
  msg: string;
  event?: string;
  reqId?: string;
  [k: string]: unknown;
}

for (const backend of BACKENDS) {
  describe(`business events in logs and metrics [${backend}]`, () => {
    it('logs and counts status changes, operations, failed callbacks and conflicts', async () => {
      const lines: Line[] = [];
      const t = await startTestGateway(backend, { LOG_LEVEL: 'info', KARIBCHE_CALLBACK_TIMEOUT_MS: '300' }, { logStream: { write: (l: string) => void lines.push(JSON.parse(l)) } });
      try {
        const m = await MerchantClient.create(t);
        // A card payment, refunded; its callback goes to an address where nothing listens.
        const id = await createPaid(t, m, { callbackUrl: 'http://127.0.0.1:9/callbacks' });
        const refund = await m.post(`/v1/gateway/payments/${id}/cancel`, { amount: 4 });
        assert.equal(refund.statusCode, 200, refund.body);
        await t.gw.services.callbacks.drain();
        // An idempotency conflict: the same key with another body.
        await m.createPayment(basicPayment(), { 'Idempotency-Key': 'k-1' });
        assert.equal((await m.createPayment(basicPayment({ description: 'other' }), { 'Idempotency-Key': 'k-1' })).statusCode, 422);

        const changes = lines.filter((l) => l.event === 'payment.status' && l.payId === id).map((l) => [l.from, l.to, l.method, l.resultCode]);
        assert.deepEqual(changes, [
          ['Created', 'Processing', 5, null],
          ['Processing', 'Succeeded', 5, 'approved'],
          ['Succeeded', 'CancelPaymentProcessing', 5, 'approved'],
          ['CancelPaymentProcessing', 'PartialReturned', 5, 'approved'],
        ]);
        const refundLine = lines.find((l) => l.event === 'payment.operation' && l.payId === id)!;
        assert.deepEqual([refundLine.kind, refundLine.amount, refundLine.outcome, refundLine.status], ['refund', 400, 'done', 'PartialReturned']);
        const refundRequest = lines.find((l) => l.msg === 'incoming request' && String((l.req as { url?: string })?.url).endsWith('/cancel'));
        assert.ok(refundRequest?.reqId && refundLine.reqId === refundRequest.reqId, 'the refund line carries its request id');
        const failed = lines.find((l) => l.event === 'callback.failed' && l.payId === id)!;
        assert.ok(failed, 'a failed callback attempt is logged');
        assert.equal(failed.clientId, m.credentials.clientId);
        assert.match(String(failed.error), /ECONNREFUSED/);

        const metrics = (await t.app.inject('/metrics')).body;
        assert.match(metrics, /karibche_payment_status_changes_total\{to="Succeeded",method="5",result_code="approved"\} 1/);
        assert.match(metrics, /karibche_payment_status_changes_total\{to="PartialReturned",method="5",result_code="approved"\} 1/);
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

describe('the Grafana dashboard (docs/grafana-dashboard.json)', () => {
  it('queries only metrics the gateway exports', async () => {
    const fs = await import('node:fs');
    const dash = JSON.parse(fs.readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const t = await startTestGateway(BACKENDS[0]!);
    try {
      const m = await MerchantClient.create(t);
      await createPaid(t, m);
      const exported = new Set([...(await t.app.inject('/metrics')).body.matchAll(/^# TYPE (\w+) (\w+)/gm)].flatMap(([, name, type]) => (type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name!])));
      let queried = 0;
      for (const p of dash.panels) {
        for (const { expr } of p.targets) {
          for (const name of expr.match(/\bkaribche_\w+/g) ?? []) {
            queried++;
            assert.ok(exported.has(name), `${p.title}: ${name} is not exported`);
          }
        }
      }
      assert.ok(dash.panels.length >= 12 && queried >= 20, `${dash.panels.length} panels, ${queried} metric references`);
    } finally {
      await t.close();
    }
  });
});
