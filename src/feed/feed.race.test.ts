// The events feed under concurrent writers: a reader that follows the cursor while transactions
// commit out of order sees every event exactly once, each payment's events in sequence order.
// The held-transaction cases need two connections at once, so they run on PostgreSQL only (PGlite
// is one connection: its transactions cannot overlap); the stress case runs on both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../logger.ts';
import { STATUS } from '../payments/state-machine.ts';
import { lockPayment, moveOne, plus } from '../payments/store.ts';
import type { Queryable } from '../store/db.ts';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, basicPayment, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { POSTGRES_SKIP } from '../testing/postgres-only.ts';
import { listEvents } from './feed.ts';

const witness = { log: createLogger('silent') };

for (const backend of BACKENDS) {
  describe(`events feed with concurrent writers [${backend}]`, { timeout: 180_000 }, () => {
    let t: TestGateway;
    let m: MerchantClient;
    before(async () => {
      t = await startTestGateway(backend);
      m = await MerchantClient.create(t);
    });
    after(() => t.close());
    const db = () => t.gw.services.db;
    const newPayment = async () => (await m.createPayment(basicPayment())).json().payId as string;
    /** Created ⇄ Processing: a status change that can be repeated for ever. */
    const flip = async (q: Queryable, payId: string) => {
      const row = (await lockPayment(q, payId))!;
      const to = row.status === STATUS.created ? STATUS.processing : STATUS.created;
      const patch = to === STATUS.processing ? { attempts: plus(1) } : {};
      assert.ok(
        await moveOne(q, { payId, from: row.status as typeof STATUS.created }, to, patch, t.clock.now(), witness),
      );
    };
    const read = async (after: string) => listEvents(db(), m.credentials.clientId, { after, limit: '500' });
    /**
     * Reads from `after` until `count` events have come. On a shared server a write transaction
     * open in any database (another test file) holds the feed back for a while: never a skip.
     */
    const readUntil = async (after: string, count: number) => {
      const items: Awaited<ReturnType<typeof read>>['items'] = [];
      const deadline = Date.now() + 60_000;
      while (items.length < count && Date.now() < deadline) {
        const page = await read(after);
        items.push(...page.items);
        after = page.nextCursor;
        if (items.length < count && !page.hasMore) await new Promise((r) => setTimeout(r, 20));
      }
      return items;
    };

    if (backend === 'postgres') {
      it('holds back a change committed after an older transaction that is still open, then returns both in order', async () => {
        const [a, b] = [await newPayment(), await newPayment()];
        const start = (await read('')).nextCursor;
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let written!: () => void;
        const aWritten = new Promise<void>((r) => (written = r));
        // A changes first (a lower id and transaction id) and stays open; B commits meanwhile.
        const slow = db().tx(async (q) => {
          await flip(q, a);
          written();
          await gate;
        });
        await aWritten;
        await db().tx((q) => flip(q, b));
        const during = await read(start);
        assert.deepEqual(during.items, [], 'B waits: moving the cursor past it would skip A when A commits');
        assert.equal(during.nextCursor, start);
        release();
        await slow;
        assert.deepEqual(
          (await readUntil(start, 2)).map((e) => e.pay_id),
          [a, b],
        );
      });

      it('keeps a payment’s events in sequence order when an older transaction changes it after a newer one', async () => {
        const p = await newPayment();
        const start = (await read('')).nextCursor;
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let begun!: () => void;
        const hasXid = new Promise<void>((r) => (begun = r));
        // The older transaction takes its transaction id first, then waits to change the payment.
        const older = db().tx(async (q) => {
          await q.query('SELECT pg_current_xact_id()');
          begun();
          await gate;
          await flip(q, p);
        });
        await hasXid;
        await db().tx((q) => flip(q, p)); // seq 1, by the newer transaction
        release();
        await older; // seq 2, by the older transaction
        assert.deepEqual(
          (await readUntil(start, 2)).map((e) => [e.pay_id, e.seq]),
          [
            [p, 1],
            [p, 2],
          ],
        );
      });
    }

    it('a reader following the cursor during concurrent status changes sees every event once, in each payment’s order', async () => {
      const payments = await Promise.all(Array.from({ length: 12 }, newPayment));
      const start = (await read('')).nextCursor;
      const WRITERS = 6;
      const CHANGES = 25;
      let writing = true;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < CHANGES; i++) {
          const payId = payments[(w * 7 + i * 5) % payments.length]!;
          await db().tx(async (q) => {
            // Take a transaction id before the payment's lock, and linger, so commits cross.
            await q.query('SELECT pg_current_xact_id()');
            await new Promise((r) => setTimeout(r, (w + i) % 4));
            await flip(q, payId);
          });
        }
      });
      const seen: { id: number; pay_id: string; seq: number }[] = [];
      let cursor = start;
      const reader = (async () => {
        while (writing) {
          const page = await read(cursor);
          seen.push(...page.items);
          cursor = page.nextCursor;
          if (!page.hasMore) await new Promise((r) => setImmediate(r));
        }
        seen.push(...(await readUntil(cursor, WRITERS * CHANGES - seen.length)));
      })();
      await Promise.all(writers);
      writing = false;
      await reader;

      const { rows } = await db().query<{ id: number }>(
        'SELECT id FROM payment_events WHERE pay_id = ANY($1) ORDER BY id',
        [payments],
      );
      assert.equal(rows.length, WRITERS * CHANGES);
      assert.deepEqual(
        seen.map((e) => e.id).sort((x, y) => x - y),
        rows.map((r) => r.id),
        'every event exactly once',
      );
      for (const p of payments) {
        const seqs = seen.filter((e) => e.pay_id === p).map((e) => e.seq);
        assert.deepEqual(
          seqs,
          seqs.map((_, i) => i + 1),
          `events of ${p} in order`,
        );
      }
    });
  });
}

// The held-back case needs a second connection with its own open transaction: PostgreSQL only.
if (POSTGRES_SKIP)
  it('events feed: a change committed after an older open transaction is held back [postgres]', {
    skip: POSTGRES_SKIP,
  }, () => {});
