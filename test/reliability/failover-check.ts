// What the failover test's checker finds in the surviving cluster, compared with what the load was
// told: every acknowledged operation present once (not lost, not applied twice), each acknowledged
// answer equal to the stored state, and, for operations whose answer never came, applied at most
// once. Money conservation and declared transitions come from the history checker.
import { checkHistory, type Violation } from '../../src/testing/history.ts';
import type { Queryable } from '../../src/store/db.ts';
import type { Ack, FailoverRecord, Unknown } from './failover-load.ts';

export interface FailoverReport {
  acknowledged: number;
  lost: string[];
  duplicated: string[];
  differ: string[];
  /** Operations without a final answer: how many of them the database shows applied (once) or not. */
  unknownApplied: number;
  unknownNotApplied: number;
  history: Violation[];
}

interface PaymentRow {
  pay_id: string;
  merchant_payment_id: string | null;
  status: string;
  amount: number;
  confirmed_amount: number | null;
  returned_amount: number;
  split_returned_amount: number | null;
  charged_rec_id: string | null;
}

interface OperationRow {
  pay_id: string;
  kind: string;
  amount: number;
  split_amount: number | null;
}

/** The answer's decimal amount in minor units (the API speaks "12.34" or 12.34). */
/** The statuses a pay answers when the customer's attempt was approved. */
const PAID: ReadonlySet<string> = new Set(['Succeeded', 'WaitingConfirm']);
const minor = (v: unknown) => Math.round(Number(v) * 100);

export async function checkFailover(db: Queryable, rec: FailoverRecord): Promise<FailoverReport> {
  const { rows: payments } = await db.query<PaymentRow>(
    'SELECT pay_id, merchant_payment_id, status, amount, confirmed_amount, returned_amount, split_returned_amount, charged_rec_id FROM payments',
  );
  const { rows: ops } = await db.query<OperationRow>(
    `SELECT pay_id, kind, amount, split_amount FROM payment_operations WHERE status = 'done'`,
  );
  const byPayId = new Map(payments.map((p) => [p.pay_id, p]));
  const byMerchantId = group(
    payments.filter((p) => p.merchant_payment_id),
    (p) => p.merchant_payment_id!,
  );
  const byChargedCard = group(
    payments.filter((p) => p.charged_rec_id),
    (p) => p.charged_rec_id!,
  );
  const opsOf = group(ops, (o) => `${o.pay_id} ${o.kind}`);
  const r: FailoverReport = {
    acknowledged: rec.acks.length,
    lost: [],
    duplicated: [],
    differ: [],
    unknownApplied: 0,
    unknownNotApplied: 0,
    history: await checkHistory(db),
  };

  // Applied twice, whatever the client was told: each flow creates one payment per merchantPaymentId,
  // makes at most one refund or completion on it, and charges each saved card once.
  for (const [id, list] of byMerchantId)
    if (list.length > 1) r.duplicated.push(`merchantPaymentId ${id}: ${list.length} payments`);
  for (const [k, list] of opsOf)
    if (list.length > 1 && (k.endsWith(' refund') || k.endsWith(' capture')))
      r.duplicated.push(`${k}: ${list.length} operations`);
  for (const [recId, list] of byChargedCard)
    if (list.length > 1) r.duplicated.push(`saved card ${recId} charged ${list.length} times`);

  for (const a of rec.acks) {
    const p = byPayId.get(a.payId);
    const differ = (what: string) => r.differ.push(`${a.op} ${a.payId}: ${what}`);
    if (a.op === 'create' || a.op === 'create-unkeyed') {
      const found = byMerchantId.get(a.merchantPaymentId!) ?? [];
      if (!found.length) r.lost.push(`${a.op} ${a.payId}`);
      else if (found[0]!.pay_id !== a.payId) differ(`stored as ${found[0]!.pay_id}`);
      else if (found[0]!.amount !== minor((a.answer as { amount?: unknown }).amount))
        differ(`amount ${found[0]!.amount} vs answered ${String((a.answer as { amount?: unknown }).amount)}`);
    } else if (a.op === 'pay') {
      if (!p) r.lost.push(`pay ${a.payId}`);
      // Answered paid, stored unpaid: differs. Answered Created is a declined attempt (the reconciler
      // may have declined it while its authorisation was held up by the failover): nothing to compare.
      else if (PAID.has(String(a.answer.status)) && (p.status === 'Created' || p.status === 'Processing'))
        differ(`answered ${String(a.answer.status)}, stored ${p.status}`);
    } else if (a.op === 'refund') {
      const done = opsOf.get(`${a.payId} refund`) ?? [];
      if (!p || !done.length) r.lost.push(`refund of ${a.payId}`);
      else {
        if (p.status !== a.answer.status) differ(`answered ${String(a.answer.status)}, stored ${p.status}`);
        if (p.returned_amount !== minor(a.answer.returnedAmount))
          differ(`answered returnedAmount ${String(a.answer.returnedAmount)}, stored ${p.returned_amount}`);
        if (done[0]!.amount !== minor(a.answer.amount))
          differ(`answered amount ${String(a.answer.amount)}, stored ${done[0]!.amount}`);
      }
    } else if (a.op === 'completion') {
      if (!p || !(opsOf.get(`${a.payId} capture`) ?? []).length) r.lost.push(`completion of ${a.payId}`);
      else if (p.confirmed_amount !== 1000) differ(`confirmed ${p.confirmed_amount}, asked 1000`);
      else if (a.answer.status !== undefined && p.status !== a.answer.status)
        differ(`answered ${String(a.answer.status)}, stored ${p.status}`);
    } else if (a.op === 'execution') {
      const charged = byChargedCard.get(a.recId!) ?? [];
      if (!charged.length) r.lost.push(`execution on ${a.recId} → ${a.payId}`);
      else if (charged[0]!.pay_id !== a.payId) differ(`stored as ${charged[0]!.pay_id}`);
      else if (charged[0]!.amount !== 100) differ(`amount ${charged[0]!.amount}`);
    }
  }

  for (const u of rec.unknown)
    applied(u, byMerchantId, opsOf, byChargedCard) ? r.unknownApplied++ : r.unknownNotApplied++;
  return r;
}

function applied(
  u: Unknown,
  byMerchantId: Map<string, PaymentRow[]>,
  opsOf: Map<string, OperationRow[]>,
  byChargedCard: Map<string, PaymentRow[]>,
): boolean {
  if (u.op === 'create' || u.op === 'create-unkeyed') return (byMerchantId.get(u.merchantPaymentId!) ?? []).length > 0;
  if (u.op === 'refund') return (opsOf.get(`${u.payId} refund`) ?? []).length > 0;
  if (u.op === 'completion') return (opsOf.get(`${u.payId} capture`) ?? []).length > 0;
  if (u.op === 'execution') return (byChargedCard.get(u.recId!) ?? []).length > 0;
  return false;
}

function group<T>(rows: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const row of rows) m.set(key(row), [...(m.get(key(row)) ?? []), row]);
  return m;
}

/** The acknowledged operations by kind, for the summary. */
export function countByOp(acks: Ack[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of acks) out[a.op] = (out[a.op] ?? 0) + 1;
  return out;
}
