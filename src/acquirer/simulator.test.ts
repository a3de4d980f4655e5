import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Clock } from '../clock.ts';
import { migrate } from '../store/migrate.ts';
import { BACKENDS, openTestDb } from '../testing/databases.ts';
import { SimulatorAcquirer } from './simulator.ts';

describe('acquirer simulator', () => {
  it('answers no sooner than KARIBCHE_SIM_LATENCY_MS, and idempotently per reference', async () => {
    const t = await openTestDb(BACKENDS[0]!);
    try {
      await migrate(t.db);
      const sim = new SimulatorAcquirer(t.db, new Clock(), 120);
      const card = { number: '4111111111111111', expMonth: 12, expYear: 2030, securityCode: '123', holder: 'A' };
      const t0 = performance.now();
      const first = await sim.authorise({
        reference: 'r1',
        amount: 100,
        currency: 'GEL',
        method: 5,
        preAuth: false,
        data: { method: 5, card },
        tokenise: true,
      });
      assert.ok(performance.now() - t0 >= 115, 'latency applied');
      assert.equal(first.outcome, 'approved');
      const again = await sim.authorise({
        reference: 'r1',
        amount: 100,
        currency: 'GEL',
        method: 5,
        preAuth: false,
        data: { method: 5, card },
      });
      assert.deepEqual(again, first, 'the same reference is the same authorisation');
      assert.deepEqual(await sim.status('r1'), first);
      assert.deepEqual(await sim.status('never-sent'), { outcome: 'declined', resultCode: 'not_processed' });
      // Asked about before its authorisation arrived (a call held up in a failover, the reconciler
      // meanwhile declining the attempt on that answer): the late authorisation is refused, not approved.
      const late = await sim.authorise({
        reference: 'never-sent',
        amount: 100,
        currency: 'GEL',
        method: 5,
        preAuth: false,
        data: { method: 5, card },
      });
      assert.deepEqual(late, { outcome: 'declined', resultCode: 'not_processed' });
      assert.deepEqual(await sim.status('never-sent'), late);
      // A token charges without the cardholder: no challenge even for the 3-D Secure card.
      const challenged = await sim.authorise({
        reference: 'r2',
        amount: 100,
        currency: 'GEL',
        method: 5,
        preAuth: false,
        data: { method: 5, card: { ...card, number: '4000000000003220' } },
        tokenise: true,
      });
      assert.equal(challenged.outcome, 'challenge');
      const token = first.outcome === 'approved' ? first.cardToken! : '';
      assert.match(token, /^simtok_/);
      const charged = await sim.authorise({
        reference: 'r3',
        amount: 50,
        currency: 'GEL',
        method: 11,
        preAuth: false,
        data: { method: 11, cardToken: token },
      });
      assert.equal(charged.outcome, 'approved');
      assert.deepEqual(
        await sim.authorise({
          reference: 'r4',
          amount: 50,
          currency: 'GEL',
          method: 11,
          preAuth: false,
          data: { method: 11, cardToken: 'simtok_unknown' },
        }),
        { outcome: 'declined', resultCode: 'decline_invalid_card_number' },
      );
    } finally {
      await t.drop();
    }
  });
});
