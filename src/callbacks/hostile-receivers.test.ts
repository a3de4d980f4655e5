// Class (a) of issue 26: what a merchant's server answers a callback is hostile input too. A raw TCP
// receiver plays generated answers (src/testing/hostile/answers.ts) to one merchant's callbacks
// while another merchant's well-behaved receiver waits for its own. Properties: the dispatcher never
// hangs or crashes, the hostile attempt is recorded with an excerpt that is bounded (1 KiB) and
// redacted (no control character, card number or secret), and the other merchant's callback is
// delivered all the same.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { cardNumbersIn } from '../payments/card.ts';
import { BACKENDS } from '../testing/databases.ts';
import { MerchantClient, createPaid, useGateway } from '../testing/harness.ts';
import { ECHOED_SECRET, HostileReceiver, hostileAnswerArb, type HostileAnswer } from '../testing/hostile/answers.ts';
import { Receiver } from '../testing/receiver.ts';
import { AttemptRecorder } from './recorder.ts';
import { EXCERPT_BYTES } from './send.ts';
import { claimDue } from './store.ts';

const RUNS = Number(process.env.KARIBCHE_HOSTILE_RECEIVER_RUNS ?? 30);
const SEED = Number(process.env.KARIBCHE_HOSTILE_SEED ?? 20261127);
const TIMEOUT_MS = 800;

/** Rejects when `p` has not settled within `ms`: a hang becomes a failure that names itself. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still running after ${ms} ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer));
}

const describeAnswer = (a: HostileAnswer) =>
  JSON.stringify(a, (k, v) =>
    k === 'bytes' && Array.isArray(v)
      ? `${v.length} bytes`
      : typeof v === 'string' && v.length > 80
        ? `${v.slice(0, 40)}…(${v.length})`
        : v,
  );

for (const backend of BACKENDS) {
  describe(`callbacks to hostile receivers [${backend}]`, () => {
    const ctx = useGateway(backend, { KARIBCHE_CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS) });
    let hostile: HostileReceiver;
    let rx: Receiver;
    let other: MerchantClient;
    before(async () => {
      hostile = await new HostileReceiver().start();
      rx = await new Receiver().start();
      other = await MerchantClient.create(ctx.t);
    });
    after(async () => {
      await hostile.stop();
      await rx.stop();
    });
    const drain = () => ctx.t.gw.services.callbacks.drain();
    const db = () => ctx.t.gw.services.db;

    it(`one merchant's hostile answers never stop another merchant's callbacks (${RUNS} cases, seed ${SEED})`, {
      timeout: 300_000,
    }, async () => {
      const seen: Record<string, number> = {};
      await fc.assert(
        fc.asyncProperty(hostileAnswerArb, async (answer) => {
          const what = describeAnswer(answer);
          hostile.hangUp();
          hostile.answer = answer;
          const mine = await createPaid(ctx.t, ctx.m, { callbackUrl: hostile.url });
          const theirs = await createPaid(ctx.t, other, { callbackUrl: rx.url });
          // Both are due now; the dispatcher must get through both within a few deadlines.
          await within(drain(), 20 * TIMEOUT_MS + 10_000, `the dispatcher after ${what}`);
          assert.ok(
            rx.received.some((r) => r.body === JSON.stringify({ PaymentId: theirs })),
            `the other merchant's callback was not sent: ${what}`,
          );
          const { rows } = await db().query<{
            pay_id: string;
            status: string;
            response_excerpt: string | null;
            error: string | null;
            http_status: number | null;
          }>(
            `SELECT d.pay_id, d.status, a.response_excerpt, a.error, a.http_status FROM callback_deliveries d LEFT JOIN callback_attempts a ON a.event_id = d.event_id WHERE d.pay_id IN ($1, $2)`,
            [mine, theirs],
          );
          const theirsRow = rows.find((r) => r.pay_id === theirs);
          assert.equal(
            theirsRow?.status,
            'delivered',
            `the other merchant's callback: ${JSON.stringify(theirsRow)} after ${what}`,
          );
          const mineRow = rows.find((r) => r.pay_id === mine);
          assert.ok(
            mineRow && mineRow.status !== 'delivering',
            `the hostile attempt was not recorded: ${JSON.stringify(mineRow)} after ${what}`,
          );
          seen[`${mineRow.status} ${mineRow.http_status ?? mineRow.error?.slice(0, 24)}`] =
            (seen[`${mineRow.status} ${mineRow.http_status ?? mineRow.error?.slice(0, 24)}`] ?? 0) + 1;
          for (const text of [mineRow.response_excerpt ?? '', mineRow.error ?? '']) {
            assert.ok(Buffer.byteLength(text) <= EXCERPT_BYTES, `${Buffer.byteLength(text)} bytes recorded: ${what}`);
            assert.doesNotMatch(
              text,
              /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/,
              `a control character recorded: ${what}`,
            );
            assert.deepEqual(cardNumbersIn(text), [], `a card number recorded: ${what}`);
            assert.ok(!text.includes(ECHOED_SECRET.slice(0, 12)), `a secret recorded: ${what}`);
          }
          assert.equal((await ctx.t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
        }),
        { numRuns: RUNS, seed: SEED },
      );
      console.log(`[hostile receivers ${backend}] ${RUNS} answers: ${JSON.stringify(seen)}`);
    });

    it('an attempt the database refuses does not take the other attempts of its batch with it', async () => {
      const mine = await createPaid(ctx.t, ctx.m, { callbackUrl: 'http://127.0.0.1:9/never' });
      const theirs = await createPaid(ctx.t, other, { callbackUrl: 'http://127.0.0.1:9/never' });
      const claimed = (await claimDue(db(), ctx.t.clock.base.now(), 100, 30)).filter(
        (c) => c.pay_id === mine || c.pay_id === theirs,
      );
      assert.equal(claimed.length, 2);
      const recorder = new AttemptRecorder(db(), ctx.t.clock);
      // Recorded in the same turn: one batch, one statement. A NUL byte is text PostgreSQL refuses.
      const results = await Promise.allSettled(
        claimed.map((c) =>
          recorder.record({
            eventId: c.event_id,
            payId: c.pay_id,
            attempt: c.attempts,
            url: c.url,
            startedAt: new Date(),
            durationMs: 1,
            httpStatus: 200,
            error: null,
            excerpt: c.pay_id === mine ? 'a\u0000b' : 'ok',
            delivered: true,
          }),
        ),
      );
      const theirsResult = results[claimed.findIndex((c) => c.pay_id === theirs)]!;
      assert.deepEqual(theirsResult, { status: 'fulfilled', value: 'delivered' });
    });
  });
}
