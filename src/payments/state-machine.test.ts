// The one state machine: declared in code, mirrored and enforced by the database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../testing/databases.ts';
import { basicPayment, useGateway } from '../testing/harness.ts';
import { STATUS, STATUSES, TRANSITIONS, canTransition } from './state-machine.ts';
import type { Queryable } from '../store/db.ts';
import { moveOne } from './store.ts';

for (const backend of BACKENDS) {
  describe(`payment state machine [${backend}]`, () => {
    const ctx = useGateway(backend);
    const db = () => ctx.t.gw.services.db;
    const created = async () => (await ctx.m.createPayment(basicPayment())).json().payId as string;

    it('declares the same transitions in code and in the database', async () => {
      const { rows } = await db().query<{ from_status: string; to_status: string }>(
        'SELECT from_status, to_status FROM payment_transitions ORDER BY 1, 2',
      );
      const inCode = Object.entries(TRANSITIONS)
        .flatMap(([from, tos]) => tos.map((to) => [from, to]))
        .sort((a, b) => (a[0]! + a[1]).localeCompare(b[0]! + b[1]));
      assert.deepEqual(
        rows.map((r) => [r.from_status, r.to_status]).sort((a, b) => (a[0]! + a[1]).localeCompare(b[0]! + b[1])),
        inCode,
      );
    });

    it('refuses in the database an undeclared move, an unknown status, and a status change without its event', async () => {
      const id = await created();
      await assert.rejects(
        db().query(`UPDATE payments SET status = 'Succeeded', event_seq = event_seq + 1 WHERE pay_id = $1`, [id]),
        /undeclared payment transition Created -> Succeeded/,
      );
      await assert.rejects(
        db().query(`UPDATE payments SET status = 'Paid', event_seq = event_seq + 1 WHERE pay_id = $1`, [id]),
        /payment_status_known/,
      );
      await assert.rejects(
        db().query(
          `INSERT INTO payment_events (pay_id, seq, status, final, created_at) VALUES ($1, 1, 'Paid', true, now())`,
          [id],
        ),
        /payment_status_known/,
      );
      await assert.rejects(
        db().query(`UPDATE payments SET status = 'Processing' WHERE pay_id = $1`, [id]),
        /advance its event sequence/,
      );
      // A declared move with the sequence advanced but no event: refused when the transaction commits.
      await assert.rejects(
        db().tx((q) =>
          q.query(`UPDATE payments SET status = 'Processing', event_seq = event_seq + 1 WHERE pay_id = $1`, [id]),
        ),
        /has no event/,
      );
      const { rows } = await db().query<{ status: string; event_seq: number }>(
        'SELECT status, event_seq FROM payments WHERE pay_id = $1',
        [id],
      );
      assert.deepEqual(rows[0], { status: 'Created', event_seq: 0 });
    });

    // Migration 025: the status triggers have no WHEN of their own; their functions let an
    // update that keeps the status through, as the condition did.
    it('lets an update that names the status but keeps it through, without an event', async () => {
      const id = await created();
      await db().tx((q) =>
        q.query(`UPDATE payments SET status = status, description = 'kept' WHERE pay_id = $1`, [id]),
      );
      const { rows } = await db().query<{ status: string; event_seq: number; description: string }>(
        'SELECT status, event_seq, description FROM payments WHERE pay_id = $1',
        [id],
      );
      assert.deepEqual(rows[0], { status: 'Created', event_seq: 0, description: 'kept' });
    });

    // The value checks of the hot tables are domains (migration 025): each refuses what its CHECK did.
    it('refuses in the database an amount, status or kind outside its domain, on every hot table', async () => {
      const id = await created();
      // One operation of the payment, with the kind, amount and status given.
      const operation = (kind: string, amount: number, status: string): [string, unknown[]] => [
        `INSERT INTO payment_operations (pay_id, kind, amount, status, prev_status, business_day, reference, created_at, updated_at)
         VALUES ($1, $2::text, $3, $4, 'Succeeded', '2026-11-29', 'r', now(), now())`,
        [id, kind, amount, status],
      ];
      const refused: [[string, unknown[]], RegExp][] = [
        [['UPDATE payments SET amount = -1 WHERE pay_id = $1', [id]], /payment_amount_not_negative/],
        [operation('chargeback', 100, 'processing'), /operation_kind_known/],
        [operation('refund', 0, 'processing'), /operation_amount_positive/],
        [operation('refund', 100, 'lost'), /operation_status_known/],
        [
          [
            `INSERT INTO callback_deliveries (event_id, pay_id, client_id, seq, status, next_attempt_at, created_at)
             SELECT 0, pay_id, client_id, 1, 'sent', now(), now() FROM payments WHERE pay_id = $1`,
            [id],
          ],
          /delivery_status_known/,
        ],
        [
          [
            `INSERT INTO sim_authorisations (reference, status, behaviour, amount, currency, created_at, updated_at)
             VALUES ($1, 'maybe', 'approve', 100, 'GEL', now(), now())`,
            [`${id}.1`],
          ],
          /sim_authorisation_status_known/,
        ],
      ];
      for (const [[sql, params], message] of refused) await assert.rejects(db().query(sql, params), message, sql);
    });

    // The check is compiled from payment_transitions (migration 021): it must follow the table.
    it('checks transitions against payment_transitions as it is: a change is followed at once, a rollback restores it', async () => {
      const id = await created();
      const move = (q: Queryable, to: string) =>
        q.query(`UPDATE payments SET status = $2, event_seq = event_seq + 1 WHERE pay_id = $1`, [id, to]);
      const inTx = (f: (q: Queryable) => Promise<unknown>) =>
        db()
          .tx(async (q) => {
            await f(q);
            throw new Error('roll back');
          })
          .catch((err: Error) => err.message);
      // Declared inside the transaction: the next status change already passes the check (it is
      // then refused at commit for its missing event, which this rollback never reaches).
      assert.equal(
        await inTx(async (q) => {
          await q.query(`INSERT INTO payment_transitions (from_status, to_status) VALUES ('Created', 'Succeeded')`);
          await move(q, 'Succeeded');
        }),
        'roll back',
      );
      // Removed inside the transaction: a declared move is refused at once.
      assert.match(
        await inTx(async (q) => {
          await q.query(`DELETE FROM payment_transitions WHERE from_status = 'Created' AND to_status = 'Expired'`);
          await move(q, 'Expired');
        }),
        /undeclared payment transition Created -> Expired/,
      );
      // Both rolled back: the check is the table's again.
      await assert.rejects(move(db(), 'Succeeded'), /undeclared payment transition Created -> Succeeded/);
      await assert.rejects(
        db().tx(async (q) => move(q, 'Expired')),
        /has no event/,
        'Created -> Expired is declared again (refused only for its missing event)',
      );
    });

    it('moves a status only along a declared transition, from the status the caller saw, with its event', async () => {
      const id = await created();
      const now = ctx.t.clock.now();
      assert.equal(canTransition(STATUS.created, STATUS.succeeded), false);
      await assert.rejects(
        moveOne(db(), { payId: id, from: STATUS.created }, STATUS.succeeded, {}, now, ctx.t.gw.services),
        /undeclared payment transition/,
      );
      assert.equal(
        await moveOne(db(), { payId: id, from: STATUS.processing }, STATUS.failed, {}, now, ctx.t.gw.services),
        null,
        'a stale view changes nothing',
      );
      const moved = await moveOne(
        db(),
        { payId: id, from: STATUS.created },
        STATUS.expired,
        {},
        now,
        ctx.t.gw.services,
      );
      assert.equal(moved?.status, 'Expired');
      const { rows } = await db().query<{ seq: number; status: string; final: boolean }>(
        'SELECT seq, status, final FROM payment_events WHERE pay_id = $1',
        [id],
      );
      assert.deepEqual(rows, [{ seq: 1, status: 'Expired', final: true }]);
      assert.equal(STATUSES.length, 10);
    });
  });
}
