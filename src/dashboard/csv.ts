// The payments CSV export: the same search as the list (listPayments), page after page, streamed
// as it is read so any number of payments costs one page of memory. Amounts are decimals with two
// places ("10.50"), times ISO 8601 UTC, as the API gives them.
import { formatMinor } from '../payments/money.ts';
import type { PaymentDetails } from '../payments/details.ts';
import { listPayments, MAX_PAGE, type PaymentQuery } from '../payments/search-payments.ts';
import type { Db } from '../store/db.ts';

const COLUMNS = [
  'payId',
  'createdAt',
  'updatedAt',
  'status',
  'paymentMethod',
  'currency',
  'amount',
  'confirmedAmount',
  'returnedAmount',
  'merchantPaymentId',
  'transactionId',
  'rrn',
  'resultCode',
  'paymentCardNumber',
  'preAuth',
  'initiator',
  'splitIban',
  'splitAmount',
  'splitReturnedAmount',
  'recId',
] as const;

/**
 * One field of RFC 4180: quoted when it holds a comma, quote or line break. A text a spreadsheet
 * would run as a formula (=, +, -, @, tab, CR first) is prefixed with ' — merchantPaymentId is the
 * shop's text and must not become a formula in someone's spreadsheet (CSV injection).
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const line = (values: (string | number | boolean | null)[]) => `${values.map(csvField).join(',')}\r\n`;

function paymentLine(p: PaymentDetails): string {
  return line([
    p.payId,
    p.createdAt,
    p.updatedAt,
    p.status,
    p.paymentMethod,
    p.currency,
    formatMinor(p.amount),
    formatMinor(p.confirmedAmount),
    formatMinor(p.returnedAmount),
    p.merchantPaymentId,
    p.transactionId,
    p.rrn,
    p.resultCode,
    p.paymentCardNumber,
    p.preAuth,
    p.initiator,
    p.split?.iban ?? null,
    p.split ? formatMinor(p.split.amount) : null,
    p.split ? formatMinor(p.split.returnedAmount) : null,
    p.recurringCard?.recId ?? null,
  ]);
}

/** The header and every payment the query finds, newest first. The query was checked by the caller. */
export async function* paymentsCsv(s: { db: Db }, clientId: string, query: PaymentQuery): AsyncGenerator<string> {
  yield line([...COLUMNS]);
  let cursor: string | undefined;
  do {
    const page = await listPayments(s, clientId, { ...query, limit: MAX_PAGE, cursor });
    let chunk = '';
    for (const p of page.items) chunk += paymentLine(p);
    if (chunk) yield chunk;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
