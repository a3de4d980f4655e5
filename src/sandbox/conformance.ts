// The callback conformance run (sandbox): sends a merchant's callback endpoint the callbacks a real
// integration must survive and reports, per case, what the endpoint answered and whether the
// merchant then fetched the payment with get-payment — the only way to learn a payment's status,
// since a callback carries nothing but a PaymentId (and the bank's is not even signed). The
// payments are real payments of the merchant, made and moved through the ordinary use cases and
// marked as the run's; the run sends their callbacks itself, in its own order, with its duplicate.
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { callbackId } from '../callbacks/ids.ts';
import { sendCallback, sendOptionsFor, type SendResult } from '../callbacks/send.ts';
import { activeSecrets } from '../callbacks/signature.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { GatewayError, gatewayError } from '../errors/gateway-error.ts';
import { unkeyed } from '../idempotency/unit-of-work.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { attemptPayment, type AttemptDetails } from '../payments/attempt.ts';
import { createPayment } from '../payments/create-payment.ts';
import type { PaymentDeps } from '../payments/deps.ts';
import { randomHex } from '../payments/ids.ts';
import { METHOD, methodRefusal, needsProducts } from '../payments/methods.ts';
import { checkChoice } from '../payments/customer-choice.ts';
import { cancelPayment, completePayment } from '../payments/cancel-and-complete.ts';
import { selectPaymentById } from '../payments/store.ts';
import type { Db, Queryable } from '../store/db.ts';
import {
  CONFORMANCE_PREFIX,
  countFetches,
  finishRun,
  insertProbes,
  insertRun,
  markPayment,
  recordFetch,
  recordRunAttempt,
  selectFinalEvents,
  selectRun,
} from './conformance-store.ts';

export type CaseName = 'unpaid' | 'duplicate' | 'out-of-order' | 'second-final' | 'unknown';

export interface SentCallback {
  callbackId: string;
  sequence: number;
  /** The status the callback's event stands for (null: the payment has no such event). */
  eventStatus: string | null;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface CaseReport {
  case: CaseName;
  description: string;
  paymentId: string;
  /** The payment's true status, what a fetch shows (null: no such payment). */
  paymentStatus: string | null;
  callbacks: SentCallback[];
  /** The merchant fetched the payment after the callback that matters for this case. */
  fetched: boolean;
  fetches: number;
  verdict: 'pass' | 'fail';
  reason: string;
}

export interface ConformanceReport {
  runId: string;
  url: string;
  verdict: 'pass' | 'fail';
  cases: CaseReport[];
  startedAt: string;
  finishedAt: string;
}

type Deps = Pick<PaymentDeps, 'db' | 'clock' | 'acquirer' | 'config' | 'log' | 'metrics'> & {
  config: Config;
  db: Db;
  clock: Clock;
};

const DESCRIPTIONS: Record<CaseName, string> = {
  unpaid:
    'A callback for a payment that is not paid (Created): only a fetch shows it is not paid; a merchant that trusts the callback ships an unpaid order.',
  duplicate:
    'The same callback twice (same X-Callback-Id): both must be acknowledged with 2xx, and the order handled once.',
  'out-of-order':
    'Two callbacks of one payment in the wrong order (the later status first): after the stale one the merchant must fetch, and keep the newer status.',
  'second-final':
    'A second final status for one payment (returned after it succeeded): a merchant that drops callbacks by PaymentId misses the refund.',
  unknown: 'A callback for a PaymentId that does not exist: the fetch answers 404; the endpoint must not fail on it.',
};

const ok2xx = (r: { httpStatus: number | null }) => r.httpStatus !== null && r.httpStatus >= 200 && r.httpStatus < 300;

/** A method the merchant can pay the run's payments with, and whether it can pre-authorise. */
function choosePayment(merchant: Merchant): { currency: string; method: number; preAuth: boolean } {
  const currency = merchant.currencies.includes('GEL') ? 'GEL' : merchant.currencies[0]!;
  const usable = (preAuth: boolean) =>
    [METHOD.card, ...merchant.methods].find(
      (m) =>
        merchant.methods.includes(m) &&
        !needsProducts(m) &&
        methodRefusal(m, { currency, preAuth, saveCard: false, split: false }) === null,
    );
  const preAuthMethod = usable(true);
  if (preAuthMethod !== undefined) return { currency, method: preAuthMethod, preAuth: true };
  return { currency, method: usable(false) ?? METHOD.card, preAuth: false };
}

/** The customer's approval with that method (the sandbox's approving card for a card). */
function approval(method: number): AttemptDetails {
  if (method === METHOD.card)
    return {
      method: METHOD.card,
      card: { number: '4111111111111111', expMonth: 12, expYear: 2099, securityCode: '123', holder: 'CONFORMANCE RUN' },
    };
  const checked = checkChoice(method, { outcome: 'approve' }, { year: 2000, month: 1 });
  if (!checked.ok) throw new Error(`method ${method} cannot be approved without a customer's input`);
  return checked.details;
}

export async function runConformance(
  s: Deps,
  merchant: Merchant,
  url: string,
  waitMs: number,
): Promise<ConformanceReport> {
  const runId = `conf_${randomHex(8)}`;
  const startedAt = new Date();
  await insertRun(s.db, runId, merchant.clientId, url, s.clock.now());
  const { currency, method, preAuth } = choosePayment(merchant);

  /** A real payment of the merchant, marked as the run's before anything happens to it. */
  const payment = async (name: CaseName, opts: { preAuth?: boolean; pay?: boolean } = {}) => {
    const created = await createPayment(
      s,
      merchant,
      {
        // 1.00: within any test-mode limit and the bank profile's limits.
        amount: { currency, total: '1.00' },
        returnurl: `${s.config.publicUrl}/healthz`,
        callbackUrl: url,
        merchantPaymentId: `${CONFORMANCE_PREFIX}${runId}-${name}`,
        description: 'Callback conformance run',
        methods: [method],
        preAuth: opts.preAuth === true,
      },
      unkeyed(s.db),
    );
    await markPayment(s.db, created.payId, runId);
    if (opts.pay) {
      const paid = await attemptPayment(s, created.payId, approval(method));
      if (paid.status !== 'Succeeded' && paid.status !== 'WaitingConfirm')
        throw new Error(`the conformance payment was not approved (${paid.status} ${paid.result_code})`);
    }
    return created.payId;
  };

  let unpaid: string, duplicate: string, twoStatuses: string, refunded: string;
  try {
    unpaid = await payment('unpaid');
    duplicate = await payment('duplicate', { pay: true });
    // Two statuses of one payment: authorised then completed, or (no method can pre-authorise) paid then partly refunded.
    twoStatuses = await payment('out-of-order', { pay: true, preAuth });
    if (preAuth) await completePayment(s, merchant.clientId, twoStatuses, 100, unkeyed(s.db));
    else
      await cancelPayment(
        s,
        merchant.clientId,
        twoStatuses,
        { amount: 50, splitIban: null, splitAmount: null },
        unkeyed(s.db),
      );
    refunded = await payment('second-final', { pay: true });
    await cancelPayment(
      s,
      merchant.clientId,
      refunded,
      { amount: null, splitIban: null, splitAmount: null },
      unkeyed(s.db),
    );
  } catch (err) {
    // The merchant's settings refuse the run's payments (no usable method, its limits reached).
    if (!(err instanceof GatewayError)) throw err;
    throw gatewayError(ERRORS.invalidRequest, {
      detail: `The run could not make its payments of 1.00 ${currency} with method ${method}: ${err.detail ?? err.def.title}`,
    });
  }
  const unknown = randomHex(16);
  await insertProbes(s.db, runId, merchant.clientId, [unpaid, duplicate, twoStatuses, refunded, unknown]);

  const secrets = activeSecrets(merchant, s.clock.now());
  const options = sendOptionsFor(s.config);
  /** One callback to the endpoint; an event's send is logged on its delivery. */
  const send = async (
    payId: string,
    event: { id: number; seq: number; status: string } | null,
  ): Promise<SentCallback & { sentAt: Date }> => {
    const id = event ? callbackId(event.id) : `evt_conf_${randomHex(8)}`;
    const sentAt = new Date();
    const r: SendResult = await sendCallback(
      url,
      payId,
      {
        callbackId: id,
        sequence: event?.seq ?? 1,
        secrets,
        timestamp: Math.floor(Date.now() / 1000),
        bare: merchant.profile === 'bank',
      },
      options,
    );
    if (event) {
      await recordRunAttempt(s.db, {
        eventId: event.id,
        payId,
        url,
        startedAt: s.clock.now(),
        durationMs: r.durationMs,
        httpStatus: r.httpStatus,
        error: r.error,
        excerpt: r.excerpt,
      });
    }
    return {
      callbackId: id,
      sequence: event?.seq ?? 1,
      eventStatus: event?.status ?? null,
      httpStatus: r.httpStatus,
      error: r.error,
      durationMs: r.durationMs,
      sentAt,
    };
  };
  /** Fetches of the payment since `since`, waiting up to waitMs for the first. */
  const fetchesSince = async (payId: string, since: Date) => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const n = await countFetches(s.db, runId, payId, since);
      if (n > 0 || Date.now() >= deadline) return n;
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  /**
   * Before the second callback of a case: wait (up to the same window) for the fetch the first one
   * prompts, so that a slow fetch answering the first is never counted as an answer to the second
   * (an endpoint that drops repeat PaymentIds once passed the refund case that way under load).
   */
  const settle = async (payId: string, since: Date) => {
    await fetchesSince(payId, since);
  };
  const events = async (payId: string) => selectFinalEvents(s.db, payId);
  const statusOf = async (payId: string) => (await selectPaymentById(s.db, payId))?.status ?? null;

  const cases: CaseReport[] = [];
  const report = async (
    name: CaseName,
    payId: string,
    sent: (SentCallback & { sentAt: Date })[],
    after: Date,
    judge: (fetched: boolean) => string | null,
  ) => {
    const fetches = await fetchesSince(payId, after);
    const problem = judge(fetches > 0);
    cases.push({
      case: name,
      description: DESCRIPTIONS[name],
      paymentId: payId,
      paymentStatus: await statusOf(payId),
      callbacks: sent.map(({ sentAt: _, ...c }) => c),
      fetched: fetches > 0,
      fetches,
      verdict: problem ? 'fail' : 'pass',
      reason: problem ?? 'as a robust integration does',
    });
  };
  const answered = (c: SentCallback) => (c.httpStatus === null ? `no answer (${c.error})` : `HTTP ${c.httpStatus}`);
  const noFetch =
    'did not fetch the payment with get-payment after the callback: the callback carries no status, only a fetch tells it';

  // 1. A callback for a payment that is not paid.
  {
    const sent = [await send(unpaid, null)];
    await report('unpaid', unpaid, sent, sent[0]!.sentAt, (fetched) =>
      fetched ? null : `${noFetch} (the payment is Created: not paid)`,
    );
  }
  // 2. The same callback twice.
  {
    const [event] = await events(duplicate);
    const sent = [await send(duplicate, event!), await send(duplicate, event!)];
    await report('duplicate', duplicate, sent, sent[0]!.sentAt, (fetched) =>
      !sent.every(ok2xx)
        ? `answered ${sent.map(answered).join(' then ')}: a duplicate must be acknowledged with 2xx too, or it is sent again`
        : fetched
          ? null
          : noFetch,
    );
  }
  // 3. Two statuses of one payment, the later first.
  {
    const evs = await events(twoStatuses);
    const [older, newer] = [evs[0]!, evs.at(-1)!];
    const sent = [await send(twoStatuses, newer)];
    await settle(twoStatuses, sent[0]!.sentAt);
    sent.push(await send(twoStatuses, older));
    await report('out-of-order', twoStatuses, sent, sent[1]!.sentAt, (fetched) =>
      !sent.every(ok2xx)
        ? `answered ${sent.map(answered).join(' then ')}`
        : fetched
          ? null
          : `${noFetch}; after the stale ${older.status} callback the payment is still ${newer.status}`,
    );
  }
  // 4. A second final status of one payment (returned after it succeeded).
  {
    const evs = await events(refunded);
    const sent = [await send(refunded, evs[0]!)];
    await settle(refunded, sent[0]!.sentAt);
    sent.push(await send(refunded, evs.at(-1)!));
    await report('second-final', refunded, sent, sent[1]!.sentAt, (fetched) =>
      !sent.every(ok2xx)
        ? `answered ${sent.map(answered).join(' then ')}`
        : fetched
          ? null
          : `${noFetch}; a merchant that drops later callbacks of the same PaymentId misses that it was ${evs.at(-1)!.status}`,
    );
  }
  // 5. A PaymentId that does not exist.
  {
    const sent = [await send(unknown, null)];
    await report('unknown', unknown, sent, sent[0]!.sentAt, (fetched) =>
      sent[0]!.httpStatus === null
        ? `the endpoint gave no answer (${sent[0]!.error})`
        : sent[0]!.httpStatus >= 500
          ? `answered HTTP ${sent[0]!.httpStatus}: the endpoint fails on an unknown PaymentId`
          : fetched
            ? null
            : noFetch,
    );
  }

  const result: ConformanceReport = {
    runId,
    url,
    verdict: cases.every((c) => c.verdict === 'pass') ? 'pass' : 'fail',
    cases,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
  };
  await finishRun(s.db, runId, result, s.clock.now());
  s.log.info(
    {
      event: 'sandbox.conformance',
      clientId: merchant.clientId,
      runId,
      verdict: result.verdict,
      failed: cases.filter((c) => c.verdict === 'fail').map((c) => c.case),
    },
    'callback conformance run finished',
  );
  return result;
}

/**
 * Runs a get-payment and, in the sandbox, records it when it fetched a PaymentId a conformance run
 * sent: a conformance payment (its merchantPaymentId says so, so other reads cost nothing) or the
 * run's unknown id (a 404, rare). Recorded in the database, so any gateway process may serve it.
 */
export async function watchConformanceFetch<T extends { merchantPaymentId: string | null }>(
  s: { db: Queryable; config: { mode: string } },
  clientId: string,
  payId: string,
  get: () => Promise<T>,
): Promise<T> {
  if (s.config.mode !== 'sandbox') return get();
  try {
    const details = await get();
    if (details.merchantPaymentId?.startsWith(CONFORMANCE_PREFIX))
      await recordFetch(s.db, clientId, payId, 200, new Date());
    return details;
  } catch (err) {
    if (err instanceof GatewayError && err.def === ERRORS.paymentNotFound)
      await recordFetch(s.db, clientId, payId, 404, new Date());
    throw err;
  }
}

/** The merchant's conformance run `runId` (its report once finished), or null. */
export async function conformanceRun(q: Queryable, clientId: string, runId: string) {
  return runId.length <= 64 ? selectRun(q, clientId, runId) : null;
}
