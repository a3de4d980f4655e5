// A request that fails after a phase committed with its key (the database went away, a COMMIT whose
// outcome it never learned — a failover) hands the key back: the client's retry with the same key
// resumes at once from the recovery point instead of waiting out the key's lock (60 s) on 409s.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Clock } from '../clock.ts';
import { migrate } from '../store/migrate.ts';
import { BACKENDS, openTestDb } from '../testing/databases.ts';
import { releasePendingClaims, runOnce } from './once.ts';
import { selectKey } from './store.ts';

for (const backend of BACKENDS) {
  describe(`idempotency: a failed request hands its key back [${backend}]`, () => {
    it('a retry right after a failure past the first phase resumes there, not 409', async () => {
      const t = await openTestDb(backend);
      try {
        await migrate(t.db);
        const deps = { db: t.db, clock: new Clock() };
        const req = { clientId: 'kc_test', key: 'order-7', operation: 'create-payment', requestHash: 'h' };
        const payId = 'b'.repeat(32);
        await assert.rejects(
          runOnce(deps, req, async (uow) => {
            await uow.reach('created', payId, (q) =>
              q.query(`INSERT INTO settings (key, value) VALUES ('created', 'once')`),
            );
            throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
          }),
          /terminated/,
        );
        const row = await selectKey(t.db, req);
        assert.equal(row?.recovery_point, 'created', 'the phase that committed is kept');
        assert.ok(row!.locked_until! <= new Date(), 'the lock is lifted');

        let resumedFrom: unknown = null;
        const retry = await runOnce(deps, req, async (uow) => {
          resumedFrom = uow.resume;
          return uow.finish(async () => ({ payId }));
        });
        assert.deepEqual(resumedFrom, { point: 'created', payId });
        assert.deepEqual(retry, { result: { payId }, replayed: true });
        const { rows } = await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM settings WHERE key = 'created'`,
        );
        assert.equal(rows[0]!.n, 1, 'the committed phase ran once');
        assert.equal(await releasePendingClaims(t.db), 0);
      } finally {
        await t.drop();
      }
    });
  });
}
