// SQL of the merchant payment search: one parameterised query, keyset-paginated on
// (created_at, pay_id) newest first, served by index payments_client_created (migration 010).
import type { Queryable } from '../store/db.ts';
import type { PaymentRow } from './row.ts';

export interface PaymentFilter {
  status?: string;
  method?: number;
  currency?: string;
  from?: Date;
  to?: Date;
  minAmount?: number;
  maxAmount?: number;
  merchantPaymentId?: string;
  payId?: string;
  /** Exclusive keyset position: rows strictly older than this one. */
  after?: { createdAt: Date; payId: string };
}

export async function searchPayments(
  q: Queryable,
  clientId: string,
  f: PaymentFilter,
  limit: number,
): Promise<PaymentRow[]> {
  const params: unknown[] = [clientId];
  const where = ['client_id = $1'];
  const add = (sql: (p: string) => string, v: unknown) => {
    params.push(v);
    where.push(sql(`$${params.length}`));
  };
  if (f.status !== undefined) add((p) => `status = ${p}`, f.status);
  if (f.method !== undefined) add((p) => `payment_method = ${p}`, f.method);
  if (f.currency !== undefined) add((p) => `currency = ${p}`, f.currency);
  if (f.from !== undefined) add((p) => `created_at >= ${p}`, f.from);
  if (f.to !== undefined) add((p) => `created_at < ${p}`, f.to);
  if (f.minAmount !== undefined) add((p) => `amount >= ${p}`, f.minAmount);
  if (f.maxAmount !== undefined) add((p) => `amount <= ${p}`, f.maxAmount);
  if (f.merchantPaymentId !== undefined) add((p) => `merchant_payment_id = ${p}`, f.merchantPaymentId);
  if (f.payId !== undefined) add((p) => `pay_id = ${p}`, f.payId);
  if (f.after) {
    params.push(f.after.createdAt, f.after.payId);
    where.push(`(created_at, pay_id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(limit);
  const { rows } = await q.query<PaymentRow>(
    `SELECT * FROM payments WHERE ${where.join(' AND ')} ORDER BY created_at DESC, pay_id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}
