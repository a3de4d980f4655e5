// Merchant payment search (Karibche extension): filters parsed and checked here, so the API and the
// dashboard reject the same inputs with the same messages; results are the get-payment details.
import { Violations } from '../errors/gateway-error.ts';
import type { PaymentDeps } from './deps.ts';
import { paymentDetails, type PaymentDetails } from './details.ts';
import { isWellFormedId } from './ids.ts';
import { isoInstant, parseIsoInstant, plainText } from './rules/fields.ts';
import type { PaymentRow } from './row.ts';
import { parseAmount } from './money.ts';
import { STATUS } from './state-machine.ts';
import { searchPayments, type PaymentFilter } from './search-store.ts';

export interface PaymentQuery {
  status?: string;
  method?: string | number;
  currency?: string;
  from?: string;
  to?: string;
  minAmount?: string | number;
  maxAmount?: string | number;
  merchantPaymentId?: string;
  payId?: string;
  limit?: string | number;
  cursor?: string;
}

export interface PaymentPage {
  items: PaymentDetails[];
  nextCursor: string | null;
}

export const MAX_PAGE = 100;
const STATUSES = new Set<string>(Object.values(STATUS));

export function encodeCursor(createdAt: Date, payId: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${payId}`).toString('base64url');
}

/** A cursor this endpoint wrote: an instant the database holds and a well-formed payId (a forged one is a 400, not a query). */
function decodeCursor(raw: string): PaymentFilter['after'] | null {
  const [iso, payId, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  const createdAt = parseIsoInstant(iso ?? '');
  if (rest.length || !payId || !isWellFormedId(payId) || !createdAt) return null;
  return { createdAt, payId };
}

/** Parses the query into a filter, reporting every bad field at once (400, nothing read). */
export function parsePaymentQuery(qs: PaymentQuery): { filter: PaymentFilter; limit: number } {
  const v = new Violations();
  const f: PaymentFilter = {};
  const blank = (x: unknown) => x === undefined || x === '';
  if (!blank(qs.status)) {
    if (STATUSES.has(String(qs.status))) f.status = String(qs.status);
    else v.add('status', `must be one of ${[...STATUSES].join(', ')}`);
  }
  if (!blank(qs.method)) {
    const m = Number(qs.method);
    if (Number.isInteger(m) && m >= 0 && m <= 1000) f.method = m;
    else v.add('method', 'must be a payment method number');
  }
  if (!blank(qs.currency)) {
    if (/^[A-Z]{3}$/.test(String(qs.currency))) f.currency = String(qs.currency);
    else v.add('currency', 'must be an ISO 4217 code such as GEL');
  }
  for (const k of ['from', 'to'] as const) {
    if (blank(qs[k])) continue;
    const d = isoInstant(v, k, String(qs[k]));
    if (d) f[k] = d;
  }
  for (const k of ['minAmount', 'maxAmount'] as const) {
    if (blank(qs[k])) continue;
    const a = parseAmount(qs[k]);
    if (a.ok) f[k] = a.minor;
    else v.add(k, a.reason);
  }
  if (f.minAmount !== undefined && f.maxAmount !== undefined && f.minAmount > f.maxAmount)
    v.add('maxAmount', 'must not be less than minAmount');
  if (f.from && f.to && f.from >= f.to) v.add('to', 'must be after from');
  for (const k of ['merchantPaymentId', 'payId'] as const) {
    if (blank(qs[k])) continue;
    // The create's rule for text (no control character, no lone surrogate): a NUL is no search.
    const text = plainText(v, k, String(qs[k]), 200);
    if (text !== null) f[k] = text;
  }
  let limit = 20;
  if (!blank(qs.limit)) {
    const n = Number(qs.limit);
    if (Number.isInteger(n) && n >= 1 && n <= MAX_PAGE) limit = n;
    else v.add('limit', `must be an integer from 1 to ${MAX_PAGE}`);
  }
  if (!blank(qs.cursor)) {
    const after = decodeCursor(String(qs.cursor));
    if (after) f.after = after;
    else v.add('cursor', 'is not a cursor returned by this endpoint');
  }
  v.throwIfAny();
  return { filter: f, limit };
}

export async function listPayments(
  s: Pick<PaymentDeps, 'db'>,
  clientId: string,
  qs: PaymentQuery,
): Promise<PaymentPage> {
  const { rows, nextCursor } = await listPaymentRows(s, clientId, qs);
  return { items: await Promise.all(rows.map((r) => paymentDetails(s.db, r))), nextCursor };
}

/** The same search, as rows (the dashboard shows what the API view has not: description, attempts). */
export async function listPaymentRows(
  s: Pick<PaymentDeps, 'db'>,
  clientId: string,
  qs: PaymentQuery,
): Promise<{ rows: PaymentRow[]; nextCursor: string | null }> {
  const { filter, limit } = parsePaymentQuery(qs);
  const rows = await searchPayments(s.db, clientId, filter, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.pay_id) : null };
}
