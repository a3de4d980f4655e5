// Race tests on PostgreSQL: concurrent refunds from a pool and from two gateways never return more
// than was captured; a completion and a cancel of one pre-authorisation: exactly one wins.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../gateway.ts';
import { BACKENDS } from '../testing/databases.ts';
import { POSTGRES_SKIP } from '../testing/postgres-only.ts';
import {
  MerchantClient,
  accessToken,
  basicPayment,
  secondGateway,
  startTestGateway,
  type TestGateway,
} from '../testing/harness.ts';

const backends = BACKENDS.includes('postgres')
  ? (['postgres', ...BACKENDS.filter((b) => b !== 'postgres')] as const)
  : BACKENDS;
// Two gateways on one database need the server: without it, the races run in one gateway (PGlite)
// and the two-gateway variant says it was skipped.
if (POSTGRES_SKIP)
  it('concurrent operations through two gateways on one PostgreSQL [postgres]', { skip: POSTGRES_SKIP }, () => {});

for (const backend of backends) {
  describe(`concurrent operations [${backend}]`, { timeout: 120_000 }, () => {
    let t: TestGateway;
    let other: Gateway | null = null;
    let m: MerchantClient;
    // 50 ms at the acquirer keeps each operation in its Processing status long enough that the
    // racing requests really overlap (without it one can finish before the other starts).
    // The 50 racing refunds queue on the payment's row: on a loaded machine the last waits longer
    // than the default 10 s and would rightly get 409 (tested in cancel-and-complete.test.ts); this suite is
    // about the outcome of the race, so it allows the longest wait.
    const env = { KARIBCHE_SIM_LATENCY_MS: '50', KARIBCHE_OPERATION_WAIT_MS: '120000' };
    before(async () => {
      t = await startTestGateway(backend, env);
      if (backend === 'postgres') other = await secondGateway(t, env);
      m = await MerchantClient.create(t);
    });
    after(async () => {
      if (other) {
        await other.close();
        await other.services.db.close();
      }
      await t.close();
    });

    const paidYesterday = async (over: Record<string, unknown> = {}) => {
      const id = (
        await m.createPayment(
          basicPayment({ amount: { currency: 'GEL', total: '10.00' }, callbackUrl: 'http://127.0.0.1:9/cb', ...over }),
        )
      ).json().payId;
      assert.equal(
        (await t.admin('POST', `/sandbox/v1/payments/${id}/simulate`, { card: '4111111111111111' })).statusCode,
        200,
      );
      return id;
    };
    const nextDay = async () => {
      await t.gw.services.sharedClock.advance(86_400);
      if (other) await other.services.sharedClock.refresh();
      m.token = await accessToken(t.app, m.credentials);
    };
    const returnedEvents = async (id: string) =>
      (
        await t.gw.services.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM callback_deliveries d JOIN payment_events e ON e.id = d.event_id WHERE d.pay_id = $1 AND e.status = 'Returned'`,
          [id],
        )
      ).rows[0]!.n;

    it('50 concurrent partial refunds of 1.00 on 10.00: exactly 10 succeed, Returned, one Returned callback', async () => {
      const id = await paidYesterday();
      await nextDay();
      const apps = other ? [t.app, other.app] : [t.app];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          apps[i % apps.length]!.inject({
            method: 'POST',
            url: `/v1/gateway/payments/${id}/cancel`,
            headers: m.headers({ 'content-type': 'application/json' }),
            payload: { amount: '1.00' },
          }),
        ),
      );
      const codes = results.map((r) => r.statusCode);
      assert.equal(codes.filter((c) => c === 200).length, 10, `codes ${codes}`);
      for (const r of results.filter((r) => r.statusCode !== 200)) {
        assert.equal(r.statusCode, 400, r.body);
        assert.match(r.json().systemCode, /^cancel-payment\.400\.05[01]$/);
      }
      const p = (await m.getPayment(id)).json();
      assert.equal(p.status, 'Returned');
      assert.equal(p.returnedAmount, 10);
      const { rows } = await t.gw.services.db.query<{ n: number; total: number }>(
        `SELECT count(*)::int AS n, sum(amount)::int AS total FROM payment_operations WHERE pay_id = $1 AND status = 'done'`,
        [id],
      );
      assert.deepEqual(rows[0], { n: 10, total: 1000 });
      assert.equal(await returnedEvents(id), 1);
    });

    it('a completion and a cancel of one pre-authorisation race: exactly one wins', async () => {
      for (let round = 0; round < 5; round++) {
        const id = await paidYesterday({ preAuth: true });
        const apps = other ? [t.app, other.app] : [t.app, t.app];
        const [a, b] = await Promise.all([
          apps[0]!.inject({
            method: 'POST',
            url: `/v1/gateway/payments/${id}/completion`,
            headers: m.headers({ 'content-type': 'application/json' }),
            payload: { amount: 6 },
          }),
          apps[1]!.inject({
            method: 'POST',
            url: `/v1/gateway/payments/${id}/cancel`,
            headers: m.headers({ 'content-type': 'application/json' }),
            payload: {},
          }),
        ]);
        const wins = [a, b].filter((r) => r.statusCode === 200);
        assert.equal(wins.length, 1, `completion ${a.statusCode} ${a.body} / cancel ${b.statusCode} ${b.body}`);
        const loser = a.statusCode === 200 ? b : a;
        assert.ok([400, 409].includes(loser.statusCode), loser.body);
        const p = (await m.getPayment(id)).json();
        if (a.statusCode === 200)
          assert.deepEqual([p.status, p.confirmedAmount, p.returnedAmount], ['Succeeded', 6, 0]);
        else assert.deepEqual([p.status, p.confirmedAmount, p.returnedAmount], ['Returned', 0, 10]);
      }
    });
  });
}
