// The unit of work: phases commit with the key's recovery point, only the key's owner may move it
// on, and a request that lost its key to a retry rolls its own change back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrate } from '../store/migrate.ts';
import { BACKENDS, openTestDb } from '../testing/databases.ts';
import { claimKey, selectKey, takeOverKey, type Claim } from './store.ts';
import { keyed } from './unit-of-work.ts';

for (const backend of BACKENDS) {
  describe(`idempotency unit of work [${backend}]`, () => {
    it('records each phase with its change, replays the finished result, and lets only the owner move the key on', async () => {
      const t = await openTestDb(backend);
      try {
        await migrate(t.db);
        const db = t.db;
        const id = { clientId: 'kc_test', key: 'order-1' };
        const now = new Date();
        const claim = (owner: string, at = now): Claim => ({
          ...id,
          operation: 'execute-payment',
          requestHash: 'h1',
          owner,
          now: at,
          lockedUntil: new Date(Date.now() + 60_000),
          expiredBefore: new Date(at.getTime() - 86_400_000),
        });
        const setting = async (key: string) =>
          (await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]?.value ??
          null;

        assert.equal(await claimKey(db, claim('first')), true);
        assert.equal(await claimKey(db, claim('second')), false, 'a live key cannot be claimed twice');
        const first = keyed<{ n: number }>(db, id, 'first', null);
        await first.reach('created', 'a'.repeat(32), (q) =>
          q.query(`INSERT INTO settings (key, value) VALUES ('phase-1', 'done')`),
        );
        let row = await selectKey(db, id);
        assert.deepEqual(
          [row?.recovery_point, row?.pay_id, await setting('phase-1')],
          ['created', 'a'.repeat(32), 'done'],
        );

        assert.equal(
          await takeOverKey(db, id, 'second', new Date(), new Date(Date.now() + 60_000)),
          null,
          'a live key is not taken over',
        );
        // The first owner looks dead (its lock ran out) and a retry takes the key over.
        await db.query('UPDATE idempotency_keys SET locked_until = $1', [new Date(Date.now() - 1)]);
        const taken = await takeOverKey(db, id, 'second', new Date(), new Date(Date.now() + 60_000));
        assert.deepEqual(taken, { recovery_point: 'created', pay_id: 'a'.repeat(32) });

        // The first request was not dead after all: its next phase must not apply.
        await assert.rejects(
          first.reach('acquirer_called', 'a'.repeat(32), (q) =>
            q.query(`INSERT INTO settings (key, value) VALUES ('phase-2', 'first')`),
          ),
          /taken over/,
        );
        assert.equal(await setting('phase-2'), null, 'its change was rolled back');

        const second = keyed<{ n: number }>(db, id, 'second', { point: 'created', payId: 'a'.repeat(32) });
        assert.deepEqual(
          await second.finish(
            async (q) => (await q.query(`INSERT INTO settings (key, value) VALUES ('phase-2', 'second')`), { n: 7 }),
          ),
          { n: 7 },
        );
        row = await selectKey(db, id);
        assert.deepEqual(
          [row?.recovery_point, row?.result, row?.locked_until, await setting('phase-2')],
          ['finished', { n: 7 }, null, 'second'],
        );

        // A day later the key is free for a new request.
        const later = new Date(now.getTime() + 86_400_001);
        assert.equal(await claimKey(db, claim('third', later)), true);
        assert.equal((await selectKey(db, id))?.recovery_point, 'claimed');
      } finally {
        await t.drop();
      }
    });
  });
}
