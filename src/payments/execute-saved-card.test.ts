// A saved-card charge without an Idempotency-Key answers the payment as the acquirer's answer left
// it, with the card it checked: it reads the card once and the payment never (issue 25: the answer
// was two more reads, the payment and the card again). The answer is what a GET then shows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Queryable } from '../store/db.ts';
import { BACKENDS } from '../testing/databases.ts';
import { accessToken, createPaid, useGateway } from '../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`saved-card charge [${backend}]`, () => {
    const ctx = useGateway(backend);

    /** The statements `q` runs while `f` does, by the table they read. */
    async function readsDuring(queryables: Queryable[], f: () => Promise<void>): Promise<Record<string, number>> {
      const seen: Record<string, number> = {};
      const originals = queryables.map((q) => q.query);
      queryables.forEach((q, i) => {
        q.query = ((text: string, ...rest: unknown[]) => {
          for (const table of ['saved_cards', 'payments'])
            if (new RegExp(`^\\s*SELECT[\\s\\S]*FROM ${table}\\b`).test(text)) seen[table] = (seen[table] ?? 0) + 1;
          return (originals[i] as (...a: unknown[]) => unknown).call(q, text, ...rest);
        }) as Queryable['query'];
      });
      try {
        await f();
      } finally {
        queryables.forEach((q, i) => {
          q.query = originals[i]!;
        });
      }
      return seen;
    }

    it('answers a charge without a key from the payment as approved and the card it checked: one read, the card', async () => {
      const s = ctx.t.gw.services;
      const paid = await createPaid(ctx.t, ctx.m, { saveCard: true });
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
      const recId = (await ctx.m.getPayment(paid)).json().recurringCard.recId as string;
      let answer: Record<string, unknown> = {};
      const reads = await readsDuring([...new Set([s.reads, s.db])], async () => {
        const res = await ctx.m.post('/v1/gateway/payments/execution', {
          recId,
          money: { amount: '3.00', currency: 'GEL' },
        });
        assert.equal(res.statusCode, 200, res.body);
        answer = res.json();
      });
      assert.deepEqual(reads, { saved_cards: 1 });
      assert.equal(answer.status, 'Succeeded');
      assert.deepEqual((answer.recurringCard as { recId: string }).recId, recId);
      const got = (await ctx.m.getPayment(answer.payId as string)).json();
      assert.deepEqual(answer, got, 'the answer is what a GET then shows');
    });
  });
}
