// The one window of refund, void and completion (rules/window.ts), as the API, the dashboard and the
// model test's reference model read it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operationWindow, type WindowFacts } from './window.ts';

const NOW = new Date('2026-11-24T20:00:00Z');
const TODAY = '2026-11-25'; // in Tbilisi (UTC+4) it is already the next day
const open = (f: WindowFacts, now = NOW, today = TODAY) => {
  const w = operationWindow(f, now, today);
  return (['refund', 'void', 'complete'] as const).filter((k) => w[k] === null);
};
const codes = (f: WindowFacts) => {
  const w = operationWindow(f, NOW, TODAY);
  return { refund: w.refund?.def.nnn ?? null, void: w.void?.def.nnn ?? null, complete: w.complete?.def.nnn ?? null };
};

describe('the operation window', () => {
  it('allows a pre-authorisation’s void and completion until its block ends, and neither after', () => {
    const waiting = { status: 'WaitingConfirm', transactionDay: TODAY, refundDays: [], released: false };
    assert.deepEqual(open({ ...waiting, blockUntil: new Date(NOW.getTime() + 1) }), ['void', 'complete']);
    assert.deepEqual(open({ ...waiting, blockUntil: NOW }), []);
    assert.deepEqual(codes({ ...waiting, blockUntil: NOW }), { refund: '050', void: '056', complete: '056' });
    // Once the sweep has returned it, a late completion or void hears the same reason, not “wrong status”.
    assert.deepEqual(codes({ ...waiting, status: 'Returned', blockUntil: NOW, released: true }), {
      refund: '056',
      void: '056',
      complete: '056',
    });
    // A pre-authorisation voided by the merchant is simply Returned.
    assert.deepEqual(codes({ ...waiting, status: 'Returned', blockUntil: NOW, released: false }), {
      refund: '050',
      void: '050',
      complete: '050',
    });
  });

  it('allows a refund of a paid payment, once on the day of the transaction, again on later days', () => {
    const paid = { status: 'Succeeded', blockUntil: null, transactionDay: TODAY, released: false };
    assert.deepEqual(open({ ...paid, refundDays: [] }), ['refund']);
    assert.deepEqual(open({ ...paid, status: 'PartialReturned', refundDays: [TODAY] }), []);
    assert.deepEqual(codes({ ...paid, status: 'PartialReturned', refundDays: [TODAY] }).refund, '053');
    // The business day turns (cut-off: midnight in the gateway's time zone): refunds are open again.
    assert.deepEqual(
      open({ ...paid, status: 'PartialReturned', refundDays: [TODAY] }, new Date('2026-11-25T20:00:00Z'), '2026-11-26'),
      ['refund'],
    );
    // A refund on a later day does not close the window.
    assert.deepEqual(open({ ...paid, transactionDay: '2026-11-20', refundDays: [TODAY] }), ['refund']);
  });

  it('allows nothing for a payment that is not paid or pre-authorised', () => {
    for (const status of ['Created', 'Processing', 'Failed', 'Expired', 'Returned', 'CancelPaymentProcessing']) {
      assert.deepEqual(
        open({ status, blockUntil: null, transactionDay: TODAY, refundDays: [], released: false }),
        [],
        status,
      );
    }
  });
});
