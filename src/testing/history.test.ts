// The history checker catches each kind of broken history planted in a database (with the
// database's own guards switched off, since the state machine triggers refuse most of them).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from './databases.ts';
import { MerchantClient, basicPayment, createPaid, startTestGateway, type TestGateway } from './harness.ts';
import { cardNumbersIn, isLuhnValid } from '../payments/card.ts';
import { checkHistory } from './history.ts';

describe('card numbers in text', () => {
  it('finds Luhn-valid scheme numbers, spaced or not, and nothing in ids, masks or timestamps', () => {
    assert.ok(isLuhnValid('4111111111111111') && !isLuhnValid('4111111111111112'));
    assert.deepEqual(cardNumbersIn('{"n":"4111111111111111"} 4000 0000 0000 3220 5555-5555-5555-4444'), [
      '4111111111111111',
      '4000000000003220',
      '5555555555554444',
    ]);
    assert.deepEqual(
      cardNumbersIn('411111******1111 1732345678901 a4111111111111111b 4111111111111112 pay_4111111111111111x'),
      [],
    );
    // A UUID whose first three groups are digits forming a Luhn-valid number is an id (a request id
    // in the request log made a full run fail once), and so is any longer dash-joined token.
    assert.deepEqual(cardNumbersIn('45713311-1234-4601-8abc-0123456789ab x-4111-1111-1111-1111'), []);
    assert.deepEqual(cardNumbersIn('card 4111-1111-1111-1111.'), ['4111111111111111']);
  });
});

for (const backend of BACKENDS) {
  describe(`history checker [${backend}]`, () => {
    let t: TestGateway;
    let m: MerchantClient;
    before(async () => {
      t = await startTestGateway(backend);
      m = await MerchantClient.create(t);
    });
    after(async () => {
      t.testDb.skipHistoryCheck = true; // this suite breaks its history on purpose
      await t.close();
    });

    it('a clean history from real payments has no violation', async () => {
      await createPaid(t, m);
      await createPaid(t, m, { preAuth: true });
      assert.deepEqual(await checkHistory(t.gw.services.db), []);
    });

    it('catches money out of thin air, an undeclared move, a gap, a missing callback and a stored card number', async () => {
      const db = t.gw.services.db;
      const refunded = await createPaid(t, m);
      const jumped = (await m.createPayment(basicPayment())).json().payId as string;
      const carded = (await m.createPayment(basicPayment())).json().payId as string;
      await db.query('ALTER TABLE payments DISABLE TRIGGER USER');
      await db.query('ALTER TABLE payment_events DISABLE TRIGGER USER');
      try {
        await db.query('UPDATE payments SET returned_amount = amount + 1 WHERE pay_id = $1', [refunded]);
        // Created -> Succeeded without Processing, and its event numbered 2 (a gap), with no delivery.
        await db.query(
          `INSERT INTO payment_events (pay_id, seq, status, final, created_at) VALUES ($1, 2, 'Succeeded', true, now())`,
          [jumped],
        );
        await db.query(`UPDATE payments SET status = 'Succeeded', event_seq = 2 WHERE pay_id = $1`, [jumped]);
        // The create rules refuse a card number in free text; a path that forgot them would store it.
        await db.query(`UPDATE payments SET description = 'card 4111 1111 1111 1111' WHERE pay_id = $1`, [carded]);
      } finally {
        await db.query('ALTER TABLE payments ENABLE TRIGGER USER');
        await db.query('ALTER TABLE payment_events ENABLE TRIGGER USER');
      }
      const found = await checkHistory(db);
      const rules = (payId: string | undefined) =>
        found
          .filter((v) => v.payId === payId)
          .map((v) => v.rule)
          .sort();
      assert.deepEqual(rules(refunded), ['money conserved']);
      assert.deepEqual(rules(jumped), [
        'declared transitions, contiguous events, final flag',
        'one callback per final entry',
      ]);
      assert.ok(
        found.some(
          (v) => v.rule === 'no card number stored' && v.detail.startsWith('payments.description: 411111…1111'),
        ),
        JSON.stringify(found),
      );
    });
  });
}
