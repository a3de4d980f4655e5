// JSON bodies as they were written (issue 26): an amount is judged by its literal text in the body,
// not by the number JSON.parse rounded it to (10.10000000000000001 is not 10.10, 1.5e1 is not an
// amount with at most two decimals), on every endpoint that takes one; and a "__proto__" (or
// "constructor.prototype") property is an unknown property like any other: ignored, never refused
// as invalid JSON and never a prototype.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { ADMIN_TOKEN, SPLIT_IBAN, accessToken, createPaid, useGateway } from '../testing/harness.ts';

/** Spellings JSON.parse reads as an amount with at most two decimals, but that were not written so. */
const INEXACT = ['10.10000000000000001', '1.5e1', '1E1', '1e0', '10.100000000000000', '5.000', '2.50e0', '-0'];
const RETURN = '"returnurl":"https://shop.example/return"';

for (const backend of BACKENDS) {
  describe(`JSON bodies as written [${backend}]`, () => {
    const ctx = useGateway(backend);
    const raw = (url: string, body: string) => ctx.m.post(url, body);
    const create = (body: string) => raw('/v1/gateway/payments', body);
    /** A 400 that names `field` among invalidParams (the documented amount rejection). */
    const refused = (
      res: { statusCode: number; body: string; json: () => { systemCode: string; invalidParams?: { name: string }[] } },
      field: string,
      what: string,
      code = /\.400\.001$/,
    ) => {
      assert.equal(res.statusCode, 400, `${what}: ${res.statusCode} ${res.body}`);
      assert.match(res.json().systemCode, code, `${what}: not the documented amount rejection: ${res.body}`);
      assert.ok(
        (res.json().invalidParams ?? []).some((p) => p.name === field),
        `${what}: ${field} not named: ${res.body}`,
      );
    };
    const countPayments = async () =>
      (
        await ctx.t.gw.services.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM payments WHERE client_id = $1',
          [ctx.m.credentials.clientId],
        )
      ).rows[0]!.n;

    it('create: total, subtotal/tax/shipping, installment prices and the split amount are judged as written', async () => {
      const before = await countPayments();
      for (const n of INEXACT) {
        refused(await create(`{"amount":{"currency":"GEL","total":${n}},${RETURN}}`), 'amount.total', `total ${n}`);
        refused(
          await create(`{"amount":{"currency":"GEL","subtotal":${n},"tax":0,"shipping":1},${RETURN}}`),
          'amount.subtotal',
          `subtotal ${n}`,
        );
        refused(
          await create(
            `{"amount":{"currency":"GEL","total":20},${RETURN},"methods":[8],"installmentProducts":[{"price":${n},"quantity":1},{"price":10,"quantity":1}]}`,
          ),
          'installmentProducts[0].price',
          `price ${n}`,
        );
        refused(
          await create(`{"amount":{"currency":"GEL","total":20},${RETURN},"extra":"${SPLIT_IBAN}","extra2":${n}}`),
          'extra2',
          `extra2 ${n}`,
          /^create-payment\.400\.021$/,
        );
      }
      assert.equal(await countPayments(), before, 'nothing was created');
      // What is written with at most two decimals is taken, trailing zeros and all.
      for (const [n, amount] of [
        ['10.10', 10.1],
        ['10.1', 10.1],
        ['15', 15],
        ['15.00', 15],
        ['0.5', 0.5],
      ] as const) {
        const res = await create(`{"amount":{"currency":"GEL","total":${n}},${RETURN}}`);
        assert.equal(res.statusCode, 200, `${n}: ${res.body}`);
        assert.equal(res.json().amount, amount);
      }
      const split = await create(
        `{"amount":{"currency":"GEL","total":20.00},${RETURN},"extra":"${SPLIT_IBAN}","extra2":5.50}`,
      );
      assert.equal(split.statusCode, 200, split.body);
      const installment = await create(
        `{"amount":{"currency":"GEL","total":20.10},${RETURN},"methods":[8],"installmentProducts":[{"price":10.10,"quantity":1},{"price":5.00,"quantity":2}]}`,
      );
      assert.equal(installment.statusCode, 200, installment.body);
    });

    it('refund, completion and a saved-card charge judge their amounts as written; nothing changes on a refusal', async () => {
      const payId = await createPaid(ctx.t, ctx.m);
      for (const n of INEXACT)
        refused(await raw(`/v1/gateway/payments/${payId}/cancel`, `{"amount":${n}}`), 'amount', `refund ${n}`);
      assert.deepEqual(
        [(await ctx.m.getPayment(payId)).json().status, (await ctx.m.getPayment(payId)).json().returnedAmount],
        ['Succeeded', 0],
      );
      const refund = await raw(`/v1/gateway/payments/${payId}/cancel`, '{"amount":1.00}');
      assert.equal(refund.statusCode, 200, refund.body);
      assert.equal(refund.json().returnedAmount, 1);

      const split = await createPaid(ctx.t, ctx.m, {
        amount: { currency: 'GEL', total: 20 },
        extra: SPLIT_IBAN,
        extra2: '5',
      });
      for (const n of INEXACT)
        refused(
          await raw(`/v1/gateway/payments/${split}/cancel`, `{"amount":20,"extra":"${SPLIT_IBAN}","extra2":${n}}`),
          'extra2',
          `split refund ${n}`,
        );
      assert.equal((await ctx.m.getPayment(split)).json().status, 'Succeeded');

      const held = await createPaid(ctx.t, ctx.m, { preAuth: true });
      for (const n of INEXACT)
        refused(await raw(`/v1/gateway/payments/${held}/completion`, `{"amount":${n}}`), 'amount', `completion ${n}`);
      assert.equal((await ctx.m.getPayment(held)).json().status, 'WaitingConfirm');
      const completed = await raw(`/v1/gateway/payments/${held}/completion`, '{"amount":5.50}');
      assert.equal(completed.statusCode, 200, completed.body);
      assert.equal(completed.json().confirmedAmount, 5.5);

      const first = await createPaid(ctx.t, ctx.m, { saveCard: true, amount: { currency: 'GEL', total: 0 } });
      const recId = (await ctx.m.getPayment(first)).json().recurringCard.recId as string;
      const before = await countPayments();
      for (const n of INEXACT)
        refused(
          await raw('/v1/gateway/payments/execution', `{"recId":"${recId}","money":{"amount":${n},"currency":"GEL"}}`),
          'money.amount',
          `execution ${n}`,
        );
      assert.equal(await countPayments(), before, 'no charge was made');
      const charged = await raw(
        '/v1/gateway/payments/execution',
        `{"recId":"${recId}","money":{"amount":12.30,"currency":"GEL"}}`,
      );
      assert.equal(charged.statusCode, 200, charged.body);
      assert.equal(charged.json().amount, 12.3);
    });

    it("the operator's amount settings are judged as written", async () => {
      const url = `/admin/v1/merchants/${ctx.m.credentials.clientId}`;
      const patch = (body: string) =>
        ctx.t.app.inject({
          method: 'PATCH',
          url,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          payload: body,
        });
      for (const field of ['testAmountLimit', 'transactionLimit', 'dailyLimit']) {
        for (const n of INEXACT) refused(await patch(`{"${field}":${n}}`), field, `${field} ${n}`);
      }
      const ok = await patch('{"transactionLimit":3000.00}');
      assert.equal(ok.statusCode, 200, ok.body);
    });

    it('a number outside an amount is read as before: an integer field takes 1.0 and 1e1, a text field is not given a number', async () => {
      const res = await create(`{"amount":{"currency":"GEL","total":10},${RETURN},"expirationMinutes":1.2e1}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().expirationMinutes, 12);
      refused(
        await create(`{"amount":{"currency":"GEL","total":10},${RETURN},"description":1.50}`),
        'description',
        'a number for a text',
      );
    });

    it('"__proto__" and "constructor.prototype" are unknown properties: ignored on every JSON endpoint, never a prototype', async () => {
      const poison = '"__proto__":{"total":99,"amount":99,"isAdmin":true},"constructor":{"prototype":{"total":99}}';
      // create
      const created = await create(`{${poison},"amount":{"currency":"GEL","total":10},${RETURN}}`);
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(created.json().amount, 10);
      // a total given only through the prototype is no total
      refused(
        await create(`{"amount":{"currency":"GEL","__proto__":{"total":99}},${RETURN}}`),
        'amount.total',
        'total in __proto__',
      );
      // refund and completion
      const payId = await createPaid(ctx.t, ctx.m);
      const refund = await raw(`/v1/gateway/payments/${payId}/cancel`, `{${poison},"amount":2}`);
      assert.equal(refund.statusCode, 200, refund.body);
      assert.equal(refund.json().returnedAmount, 2);
      const held = await createPaid(ctx.t, ctx.m, { preAuth: true });
      refused(
        await raw(`/v1/gateway/payments/${held}/completion`, `{"__proto__":{"amount":3}}`),
        'amount',
        'completion amount in __proto__',
      );
      const completion = await raw(`/v1/gateway/payments/${held}/completion`, `{${poison},"amount":3}`);
      assert.equal(completion.statusCode, 200, completion.body);
      // the token endpoint, as JSON and as form data
      const { clientId, clientSecret, apiKey } = ctx.m.credentials;
      const tokenJson = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/access-token',
        headers: { apikey: apiKey, 'content-type': 'application/json' },
        payload: `{${poison},"client_id":"${clientId}","client_secret":"${clientSecret}"}`,
      });
      assert.equal(tokenJson.statusCode, 200, tokenJson.body);
      const tokenForm = await ctx.t.app.inject({
        method: 'POST',
        url: '/v1/gateway/access-token',
        headers: { apikey: apiKey, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `__proto__=x&__proto__%5Bx%5D=1&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}`,
      });
      assert.equal(tokenForm.statusCode, 200, tokenForm.body);
      ctx.m.token = await accessToken(ctx.t.app, ctx.m.credentials);
      // sandbox
      const open = (await create(`{"amount":{"currency":"GEL","total":10},${RETURN}}`)).json().payId as string;
      const simulated = await ctx.t.app.inject({
        method: 'POST',
        url: `/sandbox/v1/payments/${open}/simulate`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: `{${poison},"card":"4111111111111111"}`,
      });
      assert.equal(simulated.statusCode, 200, simulated.body);
      assert.equal(simulated.json().status, 'Succeeded');
      // admin
      const merchant = await ctx.t.app.inject({
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: `{${poison},"name":"Proto Shop"}`,
      });
      assert.equal(merchant.statusCode, 201, merchant.body);
      assert.equal(merchant.json().merchant.name, 'Proto Shop');
      // Nothing reached a prototype anywhere.
      assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
      assert.equal(({} as Record<string, unknown>).total, undefined);
    });
  });
}
