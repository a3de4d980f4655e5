// SQL for payments: one function per database operation. moveStatus() is the one path that changes
// a payment's status: it checks the state machine, and writes the payment_events row in the same
// statement, so the outbox can never miss or invent a change (the database checks both again).
import type { Logger } from 'pino';
import type { Metrics } from '../ops/metrics.ts';
import { CALLBACK_CHANNEL } from '../callbacks/store.ts';
import type { Queryable } from '../store/db.ts';
import { MAX_MERCHANT_OFFSET, MERCHANT_OFFSET } from '../store/merchant-clock.ts';
import type { PaymentRow } from './row.ts';
import { STATUS, assertTransition, isFinal, type Status } from './state-machine.ts';
import type { NewPayment } from './rules/create.ts';

export interface InsertPayment {
  payId: string;
  clientId: string;
  recId: string | null;
  /** A saved-card charge: the card used and who initiated it. */
  charge?: { recId: string; initiator: 'client' | 'merchant' };
  payment: NewPayment;
  now: Date;
  expiresAt: Date;
}

const INSERT_COLUMNS = `pay_id, client_id, status, currency, amount, subtotal, tax, shipping, return_url,
       callback_url, extra, extra2, split_iban, split_amount, split_returned_amount, user_ip, expiration_minutes,
       expires_at, methods, installment_products, pre_auth, language, merchant_payment_id, skip_info_message,
       save_card, save_card_to_date, rec_id, description, created_at, updated_at, charged_rec_id, initiator`;

function insertValues(p: InsertPayment): unknown[] {
  const n = p.payment;
  return [
    p.payId,
    p.clientId,
    n.currency,
    n.amount,
    n.subtotal,
    n.tax,
    n.shipping,
    n.returnUrl,
    n.callbackUrl,
    n.extra,
    n.extra2,
    n.split?.iban ?? null,
    n.split?.amount ?? null,
    n.split ? 0 : null,
    n.userIp,
    n.expirationMinutes,
    p.expiresAt,
    n.methods,
    n.installmentProducts ? JSON.stringify(n.installmentProducts) : null,
    n.preAuth,
    n.language,
    n.merchantPaymentId,
    n.skipInfoMessage,
    n.saveCard,
    n.saveCardToDate,
    p.recId,
    n.description,
    p.now,
    p.charge?.recId ?? null,
    p.charge?.initiator ?? 'client',
  ];
}

/** One row's placeholders, its parameters numbered from base + 1. */
function rowPlaceholders(base: number): string {
  const $ = (i: number) => `$${base + i}`;
  const cols = [
    1,
    2,
    "'Created'",
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    15,
    16,
    17,
    18,
    19,
    20,
    21,
    22,
    23,
    24,
    25,
    26,
    27,
    28,
    28,
    29,
    30,
  ];
  return `(${cols.map((c) => (typeof c === 'number' ? $(c) : c)).join(',')})`;
}

// One row: its own statement, prepared once (30 parameters).
const INSERT_ONE = `INSERT INTO payments (${INSERT_COLUMNS}) VALUES ${rowPlaceholders(0)}`;

/**
 * The columns of a batch, in insertValues' order, each passed as one array and unnested into rows:
 * ONE statement whatever the batch's size, so it is parsed and planned once per connection (a
 * multi-row VALUES list was a statement per batch size: 30 parameters a row, up to 1,920, each
 * size parsed and planned anew on PGlite, or kept there as one more plan in memory that never
 * shrinks). `methods` travels as each row's array literal (arrays of arrays must be rectangular),
 * `installment_products` as its JSON text; both are cast back per row.
 */
const BATCH_COLUMNS = [
  ['pay_id', 'text'],
  ['client_id', 'text'],
  ['currency', 'text'],
  ['amount', 'bigint'],
  ['subtotal', 'bigint'],
  ['tax', 'bigint'],
  ['shipping', 'bigint'],
  ['return_url', 'text'],
  ['callback_url', 'text'],
  ['extra', 'text'],
  ['extra2', 'text'],
  ['split_iban', 'text'],
  ['split_amount', 'bigint'],
  ['split_returned_amount', 'bigint'],
  ['user_ip', 'text'],
  ['expiration_minutes', 'int'],
  ['expires_at', 'timestamptz'],
  ['methods', 'text'],
  ['installment_products', 'text'],
  ['pre_auth', 'boolean'],
  ['language', 'text'],
  ['merchant_payment_id', 'text'],
  ['skip_info_message', 'boolean'],
  ['save_card', 'boolean'],
  ['save_card_to_date', 'text'],
  ['rec_id', 'text'],
  ['description', 'text'],
  ['created_at', 'timestamptz'],
  ['charged_rec_id', 'text'],
  ['initiator', 'text'],
] as const satisfies readonly (readonly [string, string])[];
const METHODS = BATCH_COLUMNS.findIndex(([name]) => name === 'methods');

/** What each inserted column takes from the unnested row `r`. */
const BATCH_SELECT: Record<string, string> = {
  status: "'Created'",
  updated_at: 'r.created_at',
  methods: 'r.methods::int[]',
  installment_products: 'r.installment_products::jsonb',
};
const INSERT_BATCH = `INSERT INTO payments (${INSERT_COLUMNS})
  SELECT ${INSERT_COLUMNS.split(',')
    .map((c) => c.trim())
    .map((c) => BATCH_SELECT[c] ?? `r.${c}`)
    .join(', ')}
  FROM unnest(${BATCH_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})
    AS r(${BATCH_COLUMNS.map(([name]) => name).join(', ')})`;

/**
 * Inserts a Created payment: one prepared statement, one round trip. Creation is the initial state,
 * not a change, so it writes no event; the first event (seq 1) is the first status change.
 */
export async function insertPayment(q: Queryable, p: InsertPayment): Promise<void> {
  await insertPayments(q, [p]);
}

/** Inserts several Created payments in one statement (create's group commit, src/store/batcher.ts). */
export async function insertPayments(q: Queryable, rows: readonly InsertPayment[]): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length === 1) {
    await q.query(INSERT_ONE, insertValues(rows[0]!), 'insert_payment');
    return;
  }
  const values = rows.map(insertValues);
  const columns = BATCH_COLUMNS.map((_, i) =>
    values.map((v, k) => (i === METHODS ? `{${rows[k]!.payment.methods.join(',')}}` : v[i])),
  );
  await q.query(INSERT_BATCH, columns, 'insert_payments');
}

/** A merchant's payment; another merchant's payId finds nothing, exactly like an unknown one. */
export async function selectPayment(q: Queryable, clientId: string, payId: string): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>(
    'SELECT * FROM payments WHERE pay_id = $1 AND client_id = $2',
    [payId, clientId],
    'select_payment',
  );
  return rows[0] ?? null;
}

/** Any merchant's payment (the customer's side: checkout page, sandbox simulate). */
export async function selectPaymentById(q: Queryable, payId: string): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>(
    'SELECT * FROM payments WHERE pay_id = $1',
    [payId],
    'select_payment_by_id',
  );
  return rows[0] ?? null;
}

/** Locks the payment row for the rest of the transaction. */
export async function lockPayment(q: Queryable, payId: string): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>('SELECT * FROM payments WHERE pay_id = $1 FOR UPDATE', [payId]);
  return rows[0] ?? null;
}

/** Columns a status change may set besides the status (the names of PaymentRow). */
export type PaymentColumn =
  | 'attempts'
  | 'payment_method'
  | 'transaction_id'
  | 'rrn'
  | 'result_code'
  | 'card_mask'
  | 'card_expiry'
  | 'challenge_id'
  | 'pre_auth_expires_at'
  | 'confirmed_amount'
  | 'returned_amount'
  | 'split_returned_amount'
  | 'paid_at';

/** A new value, another column's value, or the column's own value plus n. */
export type PatchValue = unknown | { readonly column: keyof PaymentRow } | { readonly add: number };
export type PaymentPatch = Partial<Record<PaymentColumn, PatchValue>>;

const PATCHABLE: ReadonlySet<string> = new Set<PaymentColumn>([
  'attempts',
  'payment_method',
  'transaction_id',
  'rrn',
  'result_code',
  'card_mask',
  'card_expiry',
  'challenge_id',
  'pre_auth_expires_at',
  'confirmed_amount',
  'returned_amount',
  'split_returned_amount',
  'paid_at',
]);

/** Copies another column of the same row (e.g. everything authorised is returned). */
export const columnValue = (column: keyof PaymentRow) => ({ column }) as const;
/** The column's current value plus n. */
export const plus = (add: number) => ({ add }) as const;

/** Which payments a status change applies to. */
export type PaymentSelector =
  | {
      /** One payment, while it is still in `from` (and, when given, on that attempt). */
      payId: string;
      from: Status;
      attempts?: number;
      /** Only while it has not expired at this time. */
      openAt?: Date;
      /** Only once it has expired at this time. */
      expiredAt?: Date;
      /** Only while it offers this method. */
      offers?: number;
      /** Only while it is at this version (event_seq: every status change counts it): nothing
       * happened to it since it was read — what an optimistic change that read it unlocked needs. */
      eventSeq?: number;
    }
  | {
      /** Every payment in `from` whose `due` time has passed (at most `limit`), skipping rows
       * another transaction holds: several processes sweep side by side, and a customer paying
       * right now is never swept from under its lock. */
      due: 'expires_at' | 'pre_auth_expires_at';
      from: Status;
      limit: number;
    };

const IDENT = /^[a-z_]+$/;

/** Who records a status change besides the database: the log (with the request id, when there is a
 * request) and the metrics. */
export interface StatusWitness {
  log: Logger;
  metrics?: Pick<Metrics, 'paymentStatusChanges'>;
  /** Told of each change this caller made (the reconciler reports what it settled itself). */
  onMove?: (row: PaymentRow, from: Status) => void;
}

function witness(w: StatusWitness, rows: PaymentRow[], from: Status): void {
  for (const r of rows) {
    w.log.info(
      {
        event: 'payment.status',
        payId: r.pay_id,
        clientId: r.client_id,
        from,
        to: r.status,
        method: r.payment_method,
        resultCode: r.result_code,
      },
      'payment status changed',
    );
    w.metrics?.paymentStatusChanges.inc({
      to: r.status,
      method: String(r.payment_method ?? 'none'),
      result_code: r.result_code ?? 'none',
    });
    w.onMove?.(r, from);
  }
}

/**
 * Moves the selected payments from `from` to `to`, sets `patch`, and appends each one's event —
 * one statement that takes the row locks itself (a caller already holding the lock loses nothing)
 * — and tells the witness. Returns the changed rows: none when the payment was no longer in `from`
 * (the caller's view was stale), so concurrent movers never both win.
 */
export async function moveStatus(
  q: Queryable,
  sel: PaymentSelector,
  to: Status,
  patch: PaymentPatch,
  now: Date,
  w: StatusWitness,
): Promise<PaymentRow[]> {
  return (await moveJoined(q, { sel, to, patch, now, witness: w, also: null })).map((r) => r.row);
}

/**
 * A statement that changes another row in the same statement as a status change, and only when
 * the payment moved: its SQL reads the moved rows as `u` and ends with RETURNING; `param` adds a
 * parameter and returns its placeholder.
 */
export type JoinedChange = (param: (value: unknown) => string) => string;

/**
 * moveOne and another change in one statement (one round trip, no transaction of its own, so it
 * may share a group commit's with other requests'): the changed row and the other change's
 * first returned row (as JSON), or null when the payment was no longer as selected.
 */
export async function moveOneJoined(
  q: Queryable,
  c: StatusChange<Extract<PaymentSelector, { payId: string }>> & { also: JoinedChange },
): Promise<{ row: PaymentRow; joined: unknown } | null> {
  return (await moveJoined(q, c))[0] ?? null;
}

/** A status change as moveStatus takes it; `also`, the change joined to it (moveOneJoined). */
interface StatusChange<S extends PaymentSelector> {
  sel: S;
  to: Status;
  patch: PaymentPatch;
  now: Date;
  witness: StatusWitness;
  also: JoinedChange | null;
}

async function moveJoined(
  q: Queryable,
  { sel, to, patch, now, witness: w, also }: StatusChange<PaymentSelector>,
): Promise<{ row: PaymentRow; joined: unknown }[]> {
  assertTransition(sel.from, to);
  const params: unknown[] = [sel.from, to, now, isFinal(to)];
  const param = (v: unknown) => `$${params.push(v)}`;
  // target.at: the time of the change, on the payment's merchant clock (a sweep's `now` is the
  // global clock's; each merchant's own sandbox offset is added in SQL).
  const sets = ['status = $2', 'updated_at = target.at', 'event_seq = p.event_seq + 1'];
  for (const [column, value] of Object.entries(patch)) {
    if (!PATCHABLE.has(column)) throw new Error(`not a patchable payment column: ${column}`);
    if (value !== null && typeof value === 'object' && 'column' in value) {
      const source = String(value.column);
      if (!IDENT.test(source)) throw new Error(`not a column: ${source}`);
      sets.push(`${column} = p.${source}`);
    } else if (value !== null && typeof value === 'object' && 'add' in value) {
      sets.push(`${column} = p.${column} + ${param(value.add)}`);
    } else {
      sets.push(`${column} = ${param(value)}`);
    }
  }
  let target: string;
  if ('payId' in sel) {
    const conditions = [`pay_id = ${param(sel.payId)}`, 'status = $1'];
    if (sel.attempts !== undefined) conditions.push(`attempts = ${param(sel.attempts)}`);
    if (sel.openAt !== undefined) conditions.push(`expires_at > ${param(sel.openAt)}`);
    if (sel.expiredAt !== undefined) conditions.push(`expires_at <= ${param(sel.expiredAt)}`);
    if (sel.offers !== undefined) conditions.push(`${param(sel.offers)}::int = ANY (methods)`);
    if (sel.eventSeq !== undefined) conditions.push(`event_seq = ${param(sel.eventSeq)}`);
    target = `SELECT pay_id, $3::timestamptz AS at FROM payments WHERE ${conditions.join(' AND ')} FOR UPDATE`;
  } else {
    if (!IDENT.test(sel.due)) throw new Error(`not a column: ${sel.due}`);
    // Due on its merchant's clock (issue 15): the global time plus the merchant's own offset. The
    // first bound (the largest offset) keeps the due-time index usable.
    target = `SELECT p.pay_id, $3::timestamptz + ${MERCHANT_OFFSET('m')} AS at FROM payments p JOIN merchants m ON m.client_id = p.client_id
      WHERE p.status = $1 AND p.${sel.due} <= $3::timestamptz + ${MAX_MERCHANT_OFFSET} AND p.${sel.due} <= $3::timestamptz + ${MERCHANT_OFFSET('m')}
      ORDER BY p.${sel.due} LIMIT ${param(sel.limit)} FOR UPDATE OF p SKIP LOCKED`;
  }
  const joined = also ? `, x AS (${also(param)})` : '';
  const { rows: found } = await q.query<PaymentRow & { joined?: unknown }>(
    `WITH target AS (${target}),
     u AS (UPDATE payments p SET ${sets.join(', ')} FROM target WHERE p.pay_id = target.pay_id RETURNING p.*),
     e AS (INSERT INTO payment_events (pay_id, seq, status, final, created_at, client_id, result_code, confirmed_amount, returned_amount)
           SELECT pay_id, event_seq, status, $4, updated_at, client_id, result_code, confirmed_amount, returned_amount FROM u)${joined}
     SELECT *${also ? ', (SELECT to_json(x) FROM x LIMIT 1) AS joined' : ''} FROM u`,
    params,
  );
  // The rows as they came unless a joined change added its column (no copy on the pay step's path).
  const moved = also
    ? found.map(({ joined, ...row }) => ({ row, joined }))
    : found.map((row) => ({ row, joined: undefined }));
  const rows = moved.map((m) => m.row);
  witness(w, rows, sel.from);
  // A final status has a callback to deliver (the event's trigger queued it): this process's
  // dispatcher is woken once it is committed and visible to its claim.
  if (isFinal(to)) for (const r of rows) q.notifyOnCommit(CALLBACK_CHANNEL, r.pay_id);
  return moved;
}

/** moveStatus for one payment: the changed row, or null when it was no longer in `from`. */
export async function moveOne(
  q: Queryable,
  sel: Extract<PaymentSelector, { payId: string }>,
  to: Status,
  patch: PaymentPatch,
  now: Date,
  w: StatusWitness,
): Promise<PaymentRow | null> {
  return (await moveStatus(q, sel, to, patch, now, w))[0] ?? null;
}

/** The 3-D Secure challenge the current attempt now waits for (the status stays Processing). */
export async function recordChallenge(
  q: Queryable,
  payId: string,
  attempt: number,
  challengeId: string,
  now: Date,
): Promise<PaymentRow | null> {
  const { rows } = await q.query<PaymentRow>(
    `UPDATE payments SET challenge_id = $3, updated_at = $4 WHERE pay_id = $1 AND status = 'Processing' AND attempts = $2 RETURNING *`,
    [payId, attempt, challengeId, now],
  );
  return rows[0] ?? null;
}

export interface PaymentEvent {
  seq: number;
  status: Status;
  final: boolean;
  created_at: Date;
}

export async function selectEvents(q: Queryable, payId: string): Promise<PaymentEvent[]> {
  const { rows } = await q.query<PaymentEvent>(
    'SELECT seq, status, final, created_at FROM payment_events WHERE pay_id = $1 ORDER BY seq',
    [payId],
  );
  return rows;
}

/** A payment the reconciler looks at: who it belongs to and the processing status it is in. */
export interface StuckPayment {
  pay_id: string;
  client_id: string;
  status: Status;
  attempts: number;
}

/** Payments that have been Processing since before `before` (for the reconciler): `before` on the
 * global clock, moved by each payment's merchant clock offset. */
export async function selectStuckProcessing(q: Queryable, before: Date, limit: number): Promise<StuckPayment[]> {
  const { rows } = await q.query<StuckPayment>(
    `SELECT p.pay_id, p.client_id, p.status, p.attempts FROM payments p JOIN merchants m ON m.client_id = p.client_id
     WHERE p.status = '${STATUS.processing}' AND p.updated_at <= $1::timestamptz + ${MAX_MERCHANT_OFFSET} AND p.updated_at <= $1::timestamptz + ${MERCHANT_OFFSET('m')}
     ORDER BY p.updated_at LIMIT $2`,
    [before, limit],
  );
  return rows;
}

/** Payments whose cancel or completion has been processing since before `before` (as above). */
export async function selectStuckOperations(q: Queryable, before: Date, limit: number): Promise<StuckPayment[]> {
  const { rows } = await q.query<StuckPayment>(
    `SELECT p.pay_id, p.client_id, p.status, p.attempts FROM payments p JOIN merchants m ON m.client_id = p.client_id
     WHERE p.status IN ('${STATUS.cancelProcessing}', '${STATUS.completionProcessing}')
       AND p.updated_at <= $1::timestamptz + ${MAX_MERCHANT_OFFSET} AND p.updated_at <= $1::timestamptz + ${MERCHANT_OFFSET('m')}
     ORDER BY p.updated_at LIMIT $2`,
    [before, limit],
  );
  return rows;
}

/** A refund, void or completion as the merchant's dashboard lists it. */
export interface OperationRecord {
  kind: 'refund' | 'void' | 'capture';
  amount: number;
  split_amount: number | null;
  status: 'processing' | 'done' | 'refused';
  reference: string;
  result_code: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function selectOperations(q: Queryable, payId: string): Promise<OperationRecord[]> {
  const { rows } = await q.query<OperationRecord>(
    'SELECT kind, amount, split_amount, status, reference, result_code, created_at, updated_at FROM payment_operations WHERE pay_id = $1 ORDER BY id',
    [payId],
  );
  return rows.map((r) => ({
    ...r,
    amount: Number(r.amount),
    split_amount: r.split_amount === null ? null : Number(r.split_amount),
  }));
}
