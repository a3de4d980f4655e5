// One payment: every field, the split share, the saved card, the status timeline (payment_events),
// refunds / voids / completions, every callback with every delivery attempt, and the actions the
// payment allows.
import type { AttemptRow, DeliveryRow } from '../../callbacks/store.ts';
import { callbackId } from '../../callbacks/ids.ts';
import { DEFAULT_LANGUAGE, LANGUAGE_INFO, languageOf } from '../../i18n/languages.ts';
import type { PaymentDetails } from '../../payments/details.ts';
import type { PaymentRow } from '../../payments/row.ts';
import type { SavedCardRow } from '../../payments/saved-card-store.ts';
import type { OperationRecord, PaymentEvent } from '../../payments/store.ts';
import { fill, html, type Html } from '../../html/html.ts';
import { named } from '../i18n.ts';
import {
  code,
  csrfField,
  money,
  page,
  pairs,
  paymentState,
  problemBox,
  statusBadge,
  table,
  when,
  type Problem,
  type View,
} from './layout.ts';
import { methodLabel } from '../../payments/methods/index.ts';

export type Action = 'refund' | 'complete' | 'void';

export interface PaymentState {
  p: PaymentDetails;
  row: PaymentRow;
  events: PaymentEvent[];
  operations: OperationRecord[];
  card: SavedCardRow | null;
  deliveries: DeliveryRow[];
  attempts: AttemptRow[];
  actions: Action[];
  notice?: Html;
  problem?: Problem;
}

const yesNo = (v: View, b: boolean) => (b ? v.t.yes : v.t.no);

function details(v: View, s: PaymentState): Html {
  const { t } = v;
  const { p, row } = s;
  const m = (minor: number | null) => (minor === null ? null : money(v, minor, p.currency));
  return pairs([
    [t.payId, code(p.payId)],
    [t.status, paymentState(t, row)],
    [t.amount, m(p.amount)],
    [t.subtotal, m(row.subtotal)],
    [t.tax, m(row.tax)],
    [t.shipping, m(row.shipping)],
    [t.confirmedAmount, m(p.confirmedAmount)],
    [t.returnedAmount, m(p.returnedAmount)],
    [t.method, p.paymentMethod == null ? t.none : methodLabel(p.paymentMethod, t.lang)],
    [t.methodsOffered, row.methods.map((x) => methodLabel(x, t.lang)).join(', ')],
    [t.cardNumber, code(p.paymentCardNumber)],
    [t.transactionId, code(p.transactionId)],
    [t.bankReference, code(p.rrn)],
    [t.resultCode, code(p.resultCode)],
    [t.preAuth, yesNo(v, p.preAuth)],
    [t.preAuthExpiresAt, p.preAuthExpiresAt ? when(v, p.preAuthExpiresAt) : null],
    [t.initiator, p.initiator === 'merchant' ? t.byMerchant : t.byCustomer],
    [t.orderId, code(p.merchantPaymentId)],
    [t.description, row.description],
    [t.extra, code(p.extra)],
    [t.extra2, code(p.extra2)],
    [t.returnUrl, code(row.return_url)],
    [t.callbackUrl, code(row.callback_url)],
    [t.language, LANGUAGE_INFO[languageOf(row.language) ?? DEFAULT_LANGUAGE].name],
    [t.attempts, row.attempts],
    [t.created, when(v, p.createdAt)],
    [t.expiresAt, when(v, p.expiresAt)],
    [t.paidAt, row.paid_at ? when(v, row.paid_at) : null],
    [t.updatedAt, when(v, p.updatedAt)],
  ]);
}

function split(v: View, p: PaymentDetails): Html {
  if (!p.split) return html``;
  const t = v.t;
  return html`<section aria-labelledby="split-h"><h2 id="split-h">${t.splitTitle}</h2>${pairs([
    [t.splitIban, code(p.split.iban)],
    [t.splitAmount, money(v, p.split.amount, p.currency)],
    [t.splitReturned, money(v, p.split.returnedAmount, p.currency)],
  ])}</section>`;
}

function savedCard(v: View, card: SavedCardRow | null): Html {
  if (!card) return html``;
  const t = v.t;
  return html`<section aria-labelledby="card-h"><h2 id="card-h">${t.savedCardTitle}</h2>${pairs([
    [t.recId, code(card.rec_id)],
    [t.cardNumber, code(card.card_mask)],
    [t.validTo, code(card.valid_to)],
    [t.cardStatus, named(t, 'card_', card.status)],
  ])}</section>`;
}

function timeline(v: View, s: PaymentState): Html {
  const t = v.t;
  // Creation is the initial state, not an event (payments/store.ts insertPayment): shown first.
  const steps = [
    { status: 'Created', at: new Date(s.p.createdAt) },
    ...s.events.map((e) => ({ status: e.status, at: e.created_at })),
  ];
  return html`<section aria-labelledby="timeline-h"><h2 id="timeline-h">${t.timelineTitle}</h2>
<ol class="timeline" aria-label="${t.timelineCaption}">${steps.map((e) => html`<li>${statusBadge(t, e.status)} <time datetime="${e.at.toISOString()}">${when(v, e.at)}</time></li>`)}</ol></section>`;
}

function operations(v: View, s: PaymentState): Html {
  const t = v.t;
  const cur = s.p.currency;
  const body = s.operations.length
    ? table(
        t.operationsCaption,
        [
          { label: t.kind },
          { label: t.amount, cls: 'num' },
          { label: t.splitAmount, cls: 'num' },
          { label: t.status },
          { label: t.resultCode },
          { label: t.reference },
          { label: t.time, cls: 'nowrap' },
        ],
        s.operations.map((o) => [
          named(t, 'op_', o.kind),
          money(v, o.amount, cur),
          o.split_amount === null ? t.none : money(v, o.split_amount, cur),
          named(t, 'opst_', o.status),
          code(o.result_code),
          code(o.reference),
          when(v, o.created_at),
        ]),
      )
    : html`<p class="empty">${t.noOperations}</p>`;
  return html`<section aria-labelledby="ops-h"><h2 id="ops-h">${t.operationsTitle}</h2>${body}</section>`;
}

/** Why a callback has no attempt in its log, from its real state. */
function emptyLog(v: View, d: DeliveryRow): string {
  if (d.status === 'undeliverable' && d.url === null) return v.t.noAddress;
  // Claimed and counted, its answer not in yet (the log row is written when the attempt ends).
  if (d.status === 'delivering') return fill(v.t.sendingNow, { n: d.attempts });
  return v.t.noAttempts;
}

function delivery(v: View, d: DeliveryRow, attempts: AttemptRow[]): Html {
  const t = v.t;
  const id = callbackId(Number(d.event_id));
  const log = attempts.length
    ? table(
        `${t.attemptLog}: ${id}`,
        [
          { label: t.sequence, cls: 'num' },
          { label: t.time, cls: 'nowrap' },
          { label: t.url },
          { label: t.httpStatus },
          { label: t.duration, cls: 'num' },
          { label: t.error },
          { label: t.response },
        ],
        attempts.map((a) => [
          a.attempt,
          when(v, a.started_at),
          code(a.url),
          code(a.http_status),
          fill(t.ms, { n: a.duration_ms }),
          code(a.error),
          html`<code class="excerpt">${a.response_excerpt ?? ''}</code>`,
        ]),
      )
    : html`<p class="empty">${emptyLog(v, d)}</p>`;
  return html`<article class="delivery" aria-labelledby="cb-${id}"><h3 id="cb-${id}"><code>${id}</code> · ${statusBadge(t, d.event_status)}</h3>
${pairs([
  [t.deliveryStatus, html`<span class="delivery-${d.status}">${named(t, 'dl_', d.status)}</span>`],
  [t.url, code(d.url)],
  [t.attempts, d.attempts],
  [t.nextAttempt, d.status === 'pending' ? when(v, d.next_attempt_at) : null],
  [t.deliveredAt, d.delivered_at ? when(v, d.delivered_at) : null],
])}
${log}</article>`;
}

function callbacks(v: View, s: PaymentState): Html {
  const t = v.t;
  const redeliver = s.deliveries.length
    ? html`<form method="post" action="/dashboard/payments/${s.p.payId}/redeliver" class="inline" data-busy>${csrfField(v)}<button type="submit">${t.redeliver}</button></form>`
    : '';
  const list = s.deliveries.length
    ? s.deliveries.map((d) =>
        delivery(
          v,
          d,
          s.attempts.filter((a) => Number(a.event_id) === Number(d.event_id)),
        ),
      )
    : html`<p class="empty">${t.noCallbacks}</p>`;
  return html`<section aria-labelledby="callbacks-h"><div class="head"><h2 id="callbacks-h">${t.callbacksTitle}</h2>${redeliver}</div>${list}</section>`;
}

function actions(v: View, s: PaymentState): Html {
  const t = v.t;
  if (!s.actions.length) return html`<p class="hint">${t.noActions}</p>`;
  return html`<div class="action-row" role="group" aria-label="${t.actions}">${s.actions.map(
    (a) =>
      html`<form method="get" action="/dashboard/payments/${s.p.payId}/${a}"><button type="submit"${a === 'void' ? html` class="danger"` : ''}>${t[a]}</button></form>`,
  )}</div>`;
}

export function paymentPage(v: View, s: PaymentState): string {
  const t = v.t;
  const p = s.p;
  const body = html`<p class="crumbs"><a href="/dashboard/payments">${t.paymentsTitle}</a></p>
<div class="head"><h1>${t.paymentTitle} <code class="id">${p.payId}</code></h1></div>
${s.notice ?? ''}${s.problem ? problemBox(v, t.problemTitle, s.problem) : ''}
<section class="overview" aria-label="${t.amount}"><p class="big">${money(v, p.amount, p.currency)}</p><p>${paymentState(t, s.row)} ${p.paymentMethod == null ? t.none : methodLabel(p.paymentMethod, t.lang)}</p>${actions(v, s)}</section>
<section aria-labelledby="details-h"><h2 id="details-h">${t.details}</h2>${details(v, s)}</section>
${split(v, p)}${savedCard(v, s.card)}
${timeline(v, s)}
${operations(v, s)}
${callbacks(v, s)}`;
  return page(v, `${t.paymentTitle} ${p.payId}`, body, 'payments');
}
