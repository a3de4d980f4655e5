// Create's group commit end to end, on both backends: concurrent creates share statements, every
// merchant gets its own payment back (no row mixed up with another's), a row the database refuses
// fails only its own request, and a create under an Idempotency-Key stays in the key's transaction.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { basicPayment, countRows, useGateway } from '../testing/harness.ts';
import { batchedInserts } from './create-batch.ts';
import type { Batcher } from '../store/batcher.ts';
import type { NewPayment } from './rules/create.ts';
import { insertPayment, insertPayments, type InsertPayment } from './store.ts';

for (const backend of BACKENDS) {
  describe(`create's group commit [${backend}]`, { timeout: 120_000 }, () => {
    const ctx = useGateway(backend, { KARIBCHE_CREATE_BATCH_CONCURRENCY: '1' });

    it('120 concurrent creates: fewer statements than payments, each payment exactly as its request asked', async () => {
      const { t, m } = ctx;
      const inserts = t.gw.services.inserts as unknown as Batcher<InsertPayment>;
      const before = { statements: inserts.statements, items: inserts.items };
      const asked = Array.from({ length: 120 }, (_, i) => ({
        amount: { currency: i % 3 ? 'GEL' : 'USD', total: `${i + 1}.${String(i % 100).padStart(2, '0')}` },
        merchantPaymentId: `order-${i}`,
        extra: `basket ${i}`,
        preAuth: i % 2 === 0,
      }));
      const answers = await Promise.all(asked.map((a) => m.createPayment(basicPayment(a))));
      answers.forEach((r, i) => assert.equal(r.statusCode, 200, `create ${i}: ${r.body}`));
      const statements = inserts.statements - before.statements;
      assert.equal(inserts.items - before.items, 120);
      assert.ok(statements < 60, `120 creates took ${statements} statements: not batched`);
      const payIds = answers.map((r) => r.json().payId as string);
      assert.equal(new Set(payIds).size, 120);
      for (const [i, payId] of payIds.entries()) {
        const got = (await m.getPayment(payId)).json();
        assert.equal(got.payId, payId);
        assert.equal(got.merchantPaymentId, `order-${i}`);
        assert.equal(got.extra, `basket ${i}`);
        assert.equal(got.preAuth, i % 2 === 0);
        assert.equal(got.currency, asked[i]!.amount.currency);
        assert.equal(got.amount, Number(asked[i]!.amount.total));
      }
    });

    it('a row the database refuses fails only its own request; the others of its statement are committed', async () => {
      const { t, m } = ctx;
      const existing = (await m.createPayment(basicPayment())).json().payId as string;
      const clientId = m.credentials.clientId;
      // A batcher of our own so that the refused row (a payId that exists) shares a statement.
      const b = batchedInserts(t.gw.services.db, 1);
      const row = (payId: string): InsertPayment => {
        const now = t.clock.now();
        return {
          payId,
          clientId,
          recId: null,
          now,
          expiresAt: new Date(now.getTime() + 60_000),
          payment: {
            currency: 'GEL',
            amount: 100,
            subtotal: null,
            tax: null,
            shipping: null,
            returnUrl: 'https://shop.example/r',
            callbackUrl: null,
            extra: null,
            extra2: null,
            split: null,
            userIp: null,
            expirationMinutes: 1,
            methods: [5],
            installmentProducts: null,
            preAuth: false,
            language: 'KA',
            merchantPaymentId: null,
            skipInfoMessage: false,
            saveCard: false,
            saveCardToDate: null,
            description: null,
          } satisfies NewPayment,
        };
      };
      const fresh = ['batch_a', 'batch_b', 'batch_c', 'batch_d'].map((p) => `${p}${'0'.repeat(26)}`);
      const rowsBefore = await countRows(t, 'payments');
      const outcome = await Promise.allSettled([
        b.add(row(fresh[0]!)),
        b.add(row(fresh[1]!)),
        b.add(row(existing)),
        b.add(row(fresh[2]!)),
        b.add(row(fresh[3]!)),
      ]);
      assert.deepEqual(
        outcome.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.match(String((outcome[2] as PromiseRejectedResult).reason?.message), /duplicate key|unique/i);
      assert.equal(b.statements, 1 + 5, 'one statement of five that failed, then each row alone');
      assert.equal(await countRows(t, 'payments'), rowsBefore + 4);
    });

    it('a batch stores every column exactly as a row inserted alone (one statement of unnested arrays)', async () => {
      const { t, m } = ctx;
      const db = t.gw.services.db;
      const now = t.clock.now();
      // Values that a column-by-column mix-up, an array literal's quoting or a null would show.
      const full = (payId: string, k: number): InsertPayment => ({
        payId,
        clientId: m.credentials.clientId,
        recId: k === 1 ? `rec_${payId}` : null,
        now: new Date(now.getTime() + k),
        expiresAt: new Date(now.getTime() + 3_600_000 + k),
        ...(k === 2 ? { charge: { recId: 'card_of_someone', initiator: 'merchant' as const } } : {}),
        payment: {
          currency: k ? 'USD' : 'GEL',
          amount: 12_345 + k,
          subtotal: k ? 10_000 : null,
          tax: 2_000 + k,
          shipping: k === 2 ? null : 345,
          returnUrl: `https://shop.example/r?q="a,b"&n={${k}}`,
          callbackUrl: k ? 'https://shop.example/cb' : null,
          extra: `extra "quoted", {braced}, back\\slash ${k}`,
          extra2: k === 1 ? 'NULL' : null,
          split: k ? { iban: 'GE29NB0000000101904917', amount: 500 + k } : null,
          userIp: k === 2 ? null : '203.0.113.7',
          expirationMinutes: 30 + k,
          methods: k === 1 ? [4, 5, 6, 7, 8, 9, 14] : [5 + k],
          installmentProducts: k ? [{ name: `Ünïcode "tv" ${k}`, price: 9_999, quantity: 2 }] : null,
          preAuth: k === 1,
          language: k ? 'EN' : 'KA',
          merchantPaymentId: k === 2 ? null : `order-${k}`,
          skipInfoMessage: k === 2,
          saveCard: k === 1,
          saveCardToDate: k === 1 ? '1230' : null,
          description: k ? `ქართული – ${k}` : null,
        } satisfies NewPayment,
      });
      const ids = (prefix: string) => [0, 1, 2].map((k) => `${prefix}${k}${'0'.repeat(31 - prefix.length)}`);
      const alone = ids('cols_alone_');
      const batched = ids('cols_batch_');
      for (const [k, payId] of alone.entries()) await insertPayment(db, full(payId, k));
      await insertPayments(
        db,
        batched.map((payId, k) => full(payId, k)),
      );
      const read = async (payIds: string[]) => {
        const { rows } = await db.query<Record<string, unknown>>(
          'SELECT * FROM payments WHERE pay_id = ANY($1::text[]) ORDER BY pay_id',
          [payIds],
        );
        return rows.map(({ pay_id: _p, rec_id: recId, ...columns }) => ({ ...columns, saved: recId !== null }));
      };
      const [one, many] = [await read(alone), await read(batched)];
      assert.equal(many.length, 3);
      assert.deepEqual(many, one);
      assert.deepEqual(
        many.map((r) => (r as { methods?: unknown }).methods),
        [[5], [4, 5, 6, 7, 8, 9, 14], [7]],
      );
    });

    it('a create under an Idempotency-Key does not go through the batch (it is written with its key)', async () => {
      const { t, m } = ctx;
      const inserts = t.gw.services.inserts as unknown as Batcher<InsertPayment>;
      const before = inserts.items;
      const r = await m.createPayment(basicPayment(), { 'idempotency-key': `k-${backend}-1` });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(inserts.items, before);
      const again = await m.createPayment(basicPayment(), { 'idempotency-key': `k-${backend}-1` });
      assert.equal(again.json().payId, r.json().payId);
    });
  });
}
