// The payments list: a search by payId, the filters (status, method, currency, dates, amounts,
// order id), the page of results with a link to each payment, cursor pagination and CSV export.
import { CURRENCIES } from '../../payments/methods.ts';
import type { PaymentRow } from '../../payments/row.ts';
import { formEcho } from '../../payments/rules/customer.ts';
import { STATUSES } from '../../payments/state-machine.ts';
import { field, selectField } from '../../html/fields.ts';
import { html, type Html } from '../../html/html.ts';
import { named } from '../i18n.ts';
import {
  code,
  fieldErrors,
  money,
  page,
  pager,
  paymentState,
  problemBox,
  table,
  whenShort,
  type Cell,
  type Problem,
  type View,
} from './layout.ts';
import { allMethods, methodLabel } from '../../payments/methods/index.ts';

/** The filter form's fields, as the user typed them (dates as YYYY-MM-DD, `to` inclusive). */
export const FILTERS = [
  'status',
  'method',
  'currency',
  'from',
  'to',
  'minAmount',
  'maxAmount',
  'merchantPaymentId',
  'payId',
] as const;
export type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/** The filters as an address query (empty ones left out). */
export function filterQuery(f: Filters, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const k of FILTERS) if (f[k]) q.set(k, f[k]!);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export interface ListState {
  filters: Filters;
  items: PaymentRow[];
  nextCursor: string | null;
  /** This is not the first page. */
  paged: boolean;
  problem?: Problem;
}

function filterForm(v: View, f: Filters, problem: Problem | undefined): Html {
  const t = v.t;
  const methodCodes = allMethods().map((m) => m.code);
  const err = fieldErrors(problem);
  const e = (name: keyof Filters) => (err[name] ? { error: err[name], errorLang: 'en' } : {});
  return html`<form method="get" action="/dashboard/payments" class="filters" aria-label="${t.filters}">
<div class="grid">
${selectField('status', t.status, [{ value: '', label: t.anyStatus }, ...STATUSES.map((s) => ({ value: s, label: named(t, 'st_', s) }))], f.status, e('status'))}
${selectField('method', t.method, [{ value: '', label: t.anyMethod }, ...methodCodes.map((m) => ({ value: String(m), label: methodLabel(m, t.lang) }))], f.method, e('method'))}
${selectField('currency', t.currency, [{ value: '', label: t.anyCurrency }, ...CURRENCIES.map((c) => ({ value: c, label: c }))], f.currency, e('currency'))}
${field('from', t.fromDate, { type: 'date', autocomplete: 'off', value: f.from, required: false, ...e('from') })}
${field('to', t.toDate, { type: 'date', autocomplete: 'off', value: f.to, required: false, ...e('to') })}
${field('minAmount', t.minAmount, { autocomplete: 'off', inputmode: 'decimal', value: f.minAmount, required: false, maxlength: 20, ...e('minAmount') })}
${field('maxAmount', t.maxAmount, { autocomplete: 'off', inputmode: 'decimal', value: f.maxAmount, required: false, maxlength: 20, ...e('maxAmount') })}
${field('merchantPaymentId', t.orderId, { autocomplete: 'off', value: f.merchantPaymentId, required: false, maxlength: 200, attrs: html` spellcheck="false"`, ...e('merchantPaymentId') })}
</div>
${f.payId ? html`<input type="hidden" name="payId" value="${f.payId}">` : ''}
<div class="actions"><button type="submit" class="primary">${t.applyFilters}</button><a class="button secondary" href="/dashboard/payments">${t.clearFilters}</a></div>
</form>`;
}

function row(v: View, p: PaymentRow): Cell[] {
  const t = v.t;
  return [
    whenShort(v, p.created_at),
    html`<a class="id" href="/dashboard/payments/${p.pay_id}">${p.pay_id}</a>`,
    code(p.merchant_payment_id),
    p.description ? html`<span class="description">${p.description}</span>` : t.none,
    p.payment_method === null ? t.none : methodLabel(p.payment_method, t.lang),
    paymentState(t, p),
    money(v, p.amount, p.currency),
    p.returned_amount ? money(v, p.returned_amount, p.currency) : t.none,
  ];
}

export function paymentsPage(v: View, st: ListState): string {
  const t = v.t;
  // The filters as typed go to the search (which refuses them in the API's words); the page shows
  // them back without control characters (or a card number typed into one).
  const f: Filters = Object.fromEntries(Object.entries(st.filters).map(([k, typed]) => [k, formEcho(typed, 200)]));
  // A refused search found nothing to show: no "no payments match" under the refusal.
  const results = st.problem
    ? html``
    : st.items.length
      ? table(
          t.paymentsCaption,
          [
            { label: t.created, cls: 'nowrap' },
            { label: t.payId },
            { label: t.orderIdShort },
            { label: t.description },
            { label: t.method },
            { label: t.status },
            { label: t.amount, cls: 'num' },
            { label: t.returned, cls: 'num' },
          ],
          st.items.map((p) => row(v, p)),
          'payments',
        )
      : html`<p class="empty">${t.noPayments}</p>`;
  const body = html`<div class="head"><h1>${t.paymentsTitle}</h1>
<a class="button secondary" href="/dashboard/payments/export.csv${filterQuery(f)}" download>${t.exportCsv}</a></div>
<form method="get" action="/dashboard/payments" class="search" role="search">
${field('payId', t.searchPayId, { autocomplete: 'off', value: f.payId, required: false, maxlength: 200, attrs: html` spellcheck="false"` })}
<button type="submit">${t.find}</button></form>
${st.problem ? problemBox(v, t.problemTitle, st.problem) : ''}
${filterForm(v, f, st.problem)}
${results}
${pager(v, t.paymentsCaption, st.paged ? `/dashboard/payments${filterQuery(f)}` : null, st.nextCursor ? `/dashboard/payments${filterQuery(f, { cursor: st.nextCursor })}` : null)}`;
  return page(v, t.paymentsTitle, body, 'payments');
}
