// The callback conformance run against three merchant endpoints: one that acknowledges and then
// fetches every payment (passes), one that trusts the callback and never fetches (fails every case),
// and one that drops callbacks of a PaymentId it has seen (fails the two cases about that).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { EVERYTHING, MerchantClient, accessToken, useGateway } from '../testing/harness.ts';

type Behaviour = 'fetches' | 'trusts' | 'dedupes';

/** A merchant's callback endpoint: answers 200 at once, then (maybe) fetches the payment. */
class Endpoint {
  readonly received: { paymentId: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  private readonly seen = new Set<string>();
  private server: http.Server | null = null;
  fetches: Promise<unknown>[] = [];
  constructor(
    private readonly behaviour: Behaviour,
    private readonly m: MerchantClient,
  ) {}

  get url() {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/shop/callbacks`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const paymentId = JSON.parse(body).PaymentId as string;
        this.received.push({ paymentId, headers: req.headers, body });
        res.writeHead(200).end('ok');
        const fetch = this.behaviour === 'fetches' || (this.behaviour === 'dedupes' && !this.seen.has(paymentId));
        this.seen.add(paymentId);
        if (fetch) this.fetches.push(this.m.getPayment(paymentId));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all(this.fetches);
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }
}

// Each test has a merchant and an endpoint of its own, and a run mostly waits (up to waitSeconds per
// case for a fetch that a failing endpoint never makes): the tests, and the backends, run at once —
// one after the other they took 36 s of wall time on 4 s of CPU, the suite's last file.
describe('callback conformance runs', { concurrency: true }, () => {
  for (const backend of BACKENDS) {
    describe(`callback conformance run [${backend}]`, { concurrency: true }, () => {
      const ctx = useGateway(backend);
      const merchant = async () => {
        const m = await MerchantClient.create(ctx.t, EVERYTHING);
        return m;
      };
      const run = async (m: MerchantClient, body: Record<string, unknown>) => {
        m.token = await accessToken(ctx.t.app, m.credentials);
        return m.post('/sandbox/v1/callbacks/conformance', body);
      };
      /** Runs `fn` with a merchant endpoint of that kind up, and stops it whatever happens. */
      const withEndpoint = async (
        kind: ConstructorParameters<typeof Endpoint>[0],
        m: MerchantClient,
        fn: (endpoint: Endpoint) => Promise<void>,
      ) => {
        const endpoint = await new Endpoint(kind, m).start();
        try {
          await fn(endpoint);
        } finally {
          await endpoint.stop();
        }
      };
      const verdicts = (report: { cases: { case: string; verdict: string }[] }) =>
        Object.fromEntries(report.cases.map((c) => [c.case, c.verdict]));

      it('passes a merchant that acknowledges every callback and then fetches the payment', async () => {
        const m = await merchant();
        await withEndpoint('fetches', m, async (endpoint) => {
          const res = await run(m, { url: endpoint.url });
          assert.equal(res.statusCode, 200, res.body);
          const report = res.json();
          assert.deepEqual(
            verdicts(report),
            { unpaid: 'pass', duplicate: 'pass', 'out-of-order': 'pass', 'second-final': 'pass', unknown: 'pass' },
            JSON.stringify(report.cases, null, 1),
          );
          assert.equal(report.verdict, 'pass');
          const byCase = Object.fromEntries(report.cases.map((c: { case: string }) => [c.case, c]));
          assert.equal(byCase.unpaid.paymentStatus, 'Created', 'the forged success is for a payment that is not paid');
          assert.equal(byCase.unknown.paymentStatus, null);
          assert.deepEqual(
            byCase['out-of-order'].callbacks.map((c: { eventStatus: string }) => c.eventStatus),
            ['Succeeded', 'WaitingConfirm'],
          );
          assert.deepEqual(
            byCase['second-final'].callbacks.map((c: { eventStatus: string }) => c.eventStatus),
            ['Succeeded', 'Returned'],
          );
          const dup = byCase.duplicate.callbacks;
          assert.equal(dup[0].callbackId, dup[1].callbackId, 'the duplicate has the same X-Callback-Id');
          // Exactly the run's eight callbacks reached the endpoint (no dispatcher sent its payments' events).
          await ctx.t.gw.services.callbacks.drain();
          assert.equal(endpoint.received.length, 8);
          // Signed like every Karibche callback.
          const first = endpoint.received[0]!;
          const [t, v1] = String(first.headers['x-callback-signature'])
            .split(',')
            .map((p) => p.split('=')[1]);
          assert.equal(
            v1,
            createHmac('sha256', m.credentials.callbackSecret).update(`${t}.${first.body}`).digest('hex'),
          );
          // The payments are the merchant's real sandbox payments, with the run's attempts in their callback log.
          m.token = await accessToken(ctx.t.app, m.credentials);
          const payment = (await m.getPayment(byCase['second-final'].paymentId)).json();
          assert.equal(payment.status, 'Returned');
          assert.match(payment.merchantPaymentId, /^conformance-conf_[0-9a-f]{16}-second-final$/);
          const log = (await m.get(`/v1/gateway/payments/${byCase.duplicate.paymentId}/callbacks`)).json();
          assert.deepEqual(
            [
              log.callbacks[0].status,
              log.callbacks[0].attempts,
              log.callbacks[0].attemptLog.map((a: { httpStatus: number }) => a.httpStatus),
            ],
            ['conformance', 2, [200, 200]],
          );
          // The report can be read again; not by another merchant.
          const again = await m.get(`/sandbox/v1/callbacks/conformance/${report.runId}`);
          assert.deepEqual(again.json(), report);
          const other = await merchant();
          assert.equal((await other.get(`/sandbox/v1/callbacks/conformance/${report.runId}`)).statusCode, 404);
        });
      });

      it('fails a merchant that trusts the callback and never fetches', async () => {
        const m = await merchant();
        await withEndpoint('trusts', m, async (endpoint) => {
          const res = await run(m, { url: endpoint.url, waitSeconds: 1 });
          assert.equal(res.statusCode, 200, res.body);
          const report = res.json();
          assert.equal(report.verdict, 'fail');
          assert.deepEqual(verdicts(report), {
            unpaid: 'fail',
            duplicate: 'fail',
            'out-of-order': 'fail',
            'second-final': 'fail',
            unknown: 'fail',
          });
          for (const c of report.cases) {
            assert.equal(c.fetched, false);
            assert.match(c.reason, /did not fetch the payment/);
            assert.ok(
              c.callbacks.every((cb: { httpStatus: number }) => cb.httpStatus === 200),
              'it did answer 200',
            );
          }
        });
      });

      it('fails a merchant that drops later callbacks of a PaymentId it has seen: out of order and the refund after success', async () => {
        const m = await merchant();
        await withEndpoint('dedupes', m, async (endpoint) => {
          const report = (await run(m, { url: endpoint.url, waitSeconds: 1 })).json();
          assert.deepEqual(verdicts(report), {
            unpaid: 'pass',
            duplicate: 'pass',
            'out-of-order': 'fail',
            'second-final': 'fail',
            unknown: 'pass',
          });
          assert.match(
            report.cases.find((c: { case: string }) => c.case === 'second-final').reason,
            /misses that it was Returned/,
          );
        });
      });

      it('judges the answers too: an endpoint that is down fails every case', async () => {
        const m = await merchant();
        const endpoint = await new Endpoint('fetches', m).start();
        const url = endpoint.url;
        await endpoint.stop();
        const report = (await run(m, { url, waitSeconds: 1 })).json();
        assert.equal(report.verdict, 'fail');
        for (const c of report.cases) assert.equal(c.callbacks[0].httpStatus, null);
        assert.match(report.cases.find((c: { case: string }) => c.case === 'unknown').reason, /no answer/);
      });

      it('needs merchant credentials and a registered callback address; takes no fault meant for the merchant’s own payments', async () => {
        const m = await merchant();
        assert.equal(
          (await ctx.t.admin('POST', '/sandbox/v1/callbacks/conformance', { url: 'http://127.0.0.1:9/x' })).statusCode,
          401,
        );
        const foreign = await run(m, { url: 'https://elsewhere.example/callbacks' });
        assert.equal(foreign.statusCode, 400);
        assert.equal(foreign.json().systemCode, 'sandbox.400.016');
        assert.equal((await run(m, { url: 'http://127.0.0.1:9/x', waitSeconds: 31 })).statusCode, 400);
        assert.equal((await run(m, { url: 'not a url' })).statusCode, 400);
        // A merchant whose settings refuse the run's payments is told so, and nothing is sent.
        const tiny = await MerchantClient.create(ctx.t, { ...EVERYTHING, testMode: true, testAmountLimit: '0.50' });
        const refused = await run(tiny, { url: 'http://127.0.0.1:9/x' });
        assert.equal(refused.statusCode, 400, refused.body);
        assert.match(refused.json().detail, /could not make its payments of 1\.00 GEL.*test-mode limit/);
        // A fault the merchant set stays for its own next payment.
        await m.post('/sandbox/v1/faults', { operation: 'authorise', outcome: 'decline' });
        await withEndpoint('fetches', m, async (endpoint) => {
          assert.equal((await run(m, { url: endpoint.url })).json().verdict, 'pass');
        });
        assert.deepEqual(
          (await m.get('/sandbox/v1/faults')).json().faults.map((f: { remaining: number }) => f.remaining),
          [1],
        );
      });
    });
  }
});
