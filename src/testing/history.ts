// The history checker: run on every test database when it is dropped (databases.ts), whatever the
// suite did to it, so a path no test thought of still has to leave a history that makes sense.
// Rules: money is conserved, statuses moved only along declared transitions with contiguous events,
// one final event per final entry (and one callback delivery for it), and no card number anywhere.
import type { Queryable } from '../store/db.ts';
import { cardNumbersIn } from '../payments/card.ts';
import { FINAL_STATUSES, STATUS, TRANSITIONS } from '../payments/state-machine.ts';

export interface Violation {
  rule: string;
  payId?: string;
  detail: string;
}

/** `(from, to)` pairs the state machine declares, as SQL VALUES (constants from code, not input). */
const declared = Object.entries(TRANSITIONS)
  .flatMap(([from, tos]) => tos.map((to) => `('${from}','${to}')`))
  .join(',');
const finals = [...FINAL_STATUSES].map((s) => `'${s}'`).join(',');

const MONEY_SQL = `
  SELECT p.pay_id, p.amount, p.confirmed_amount, p.returned_amount, p.split_amount, p.split_returned_amount,
         coalesce(o.done, 0) AS done
    FROM payments p
    LEFT JOIN (SELECT pay_id, sum(amount) AS done FROM payment_operations
                WHERE status = 'done' AND kind IN ('refund', 'void') GROUP BY pay_id) o ON o.pay_id = p.pay_id
   WHERE p.returned_amount < 0 OR p.returned_amount > p.amount
      OR p.confirmed_amount < 0 OR p.confirmed_amount > p.amount
      OR coalesce(o.done, 0) > p.amount
      OR (p.split_amount IS NOT NULL AND (p.split_amount < 0 OR p.split_amount > p.amount))
      OR (p.split_returned_amount IS NOT NULL AND (p.split_returned_amount < 0 OR p.split_returned_amount > coalesce(p.split_amount, 0)))`;

// Each event with the status before it (Created before the first: creation writes no event).
const TRANSITION_SQL = `
  WITH e AS (
    SELECT pay_id, seq, status, final,
           coalesce(lag(status) OVER (PARTITION BY pay_id ORDER BY seq), '${STATUS.created}') AS prev,
           row_number() OVER (PARTITION BY pay_id ORDER BY seq) AS n
      FROM payment_events)
  SELECT pay_id, seq, prev, status, final, n FROM e
   WHERE (prev, status) NOT IN (VALUES ${declared})
      OR seq <> n
      OR final <> (status IN (${finals}))`;

const CURRENT_SQL = `
  SELECT p.pay_id, p.status, p.event_seq, l.seq AS last_seq, l.status AS last_status
    FROM payments p
    LEFT JOIN LATERAL (SELECT seq, status FROM payment_events e WHERE e.pay_id = p.pay_id ORDER BY seq DESC LIMIT 1) l ON true
   WHERE p.event_seq <> coalesce(l.seq, 0) OR p.status <> coalesce(l.status, '${STATUS.created}')`;

const DELIVERY_SQL = `
  SELECT e.pay_id, e.seq, count(d.event_id) AS deliveries
    FROM payment_events e LEFT JOIN callback_deliveries d ON d.event_id = e.id
   WHERE e.final
   GROUP BY e.id, e.pay_id, e.seq
  HAVING count(d.event_id) <> 1`;

export async function checkHistory(q: Queryable): Promise<Violation[]> {
  const out: Violation[] = [];
  const { rows: tables } = await q.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const names = new Set(tables.map((t) => t.table_name));
  if (!names.has('payments')) return out; // a database the gateway never migrated
  for (const r of (await q.query<Record<string, string>>(MONEY_SQL)).rows) {
    out.push({
      rule: 'money conserved',
      payId: r.pay_id,
      detail: `amount ${r.amount}, confirmed ${r.confirmed_amount}, returned ${r.returned_amount}, refunds/voids done ${r.done}, split ${r.split_amount}, split returned ${r.split_returned_amount}`,
    });
  }
  for (const r of (await q.query<Record<string, string>>(TRANSITION_SQL)).rows) {
    out.push({
      rule: 'declared transitions, contiguous events, final flag',
      payId: r.pay_id,
      detail: `event ${r.seq} (#${r.n}): ${r.prev} -> ${r.status}, final ${r.final}`,
    });
  }
  for (const r of (await q.query<Record<string, string>>(CURRENT_SQL)).rows) {
    out.push({
      rule: 'status is the last event',
      payId: r.pay_id,
      detail: `row ${r.status}/${r.event_seq}, last event ${r.last_status}/${r.last_seq}`,
    });
  }
  if (names.has('callback_deliveries')) {
    for (const r of (await q.query<Record<string, string>>(DELIVERY_SQL)).rows) {
      out.push({
        rule: 'one callback per final entry',
        payId: r.pay_id,
        detail: `event ${r.seq} has ${r.deliveries} deliveries`,
      });
    }
  }
  for (const table of names) {
    // Column by column (not the row's tuple text, whose separators could join two values into one
    // number), naming the column so that a finding can be traced.
    const { rows } = await q.query<{ j: Record<string, unknown> }>(`SELECT to_jsonb(x) AS j FROM "${table}" x`);
    for (const { j } of rows) {
      for (const [column, value] of Object.entries(typeof j === 'string' ? JSON.parse(j) : j)) {
        if (value === null) continue;
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        for (const pan of cardNumbersIn(text))
          out.push({
            rule: 'no card number stored',
            detail: `${table}.${column}: ${pan.slice(0, 6)}…${pan.slice(-4)}`,
          });
      }
    }
  }
  return out;
}

export function describeViolations(vs: readonly Violation[]): string {
  return (
    vs
      .slice(0, 20)
      .map((v) => `  - ${v.rule}${v.payId ? ` [${v.payId}]` : ''}: ${v.detail}`)
      .join('\n') + (vs.length > 20 ? `\n  … and ${vs.length - 20} more` : '')
  );
}
