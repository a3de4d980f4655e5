// Refund, completion and void of a payment: the form, then a confirmation step. Both carry the
// form's nonce, so a double submit of the confirmation runs the operation once.
import type { PaymentRow } from '../../payments/row.ts';
import { formatMinor } from '../../payments/money.ts';
import { returnable } from '../../payments/rules/cancel.ts';
import { field } from '../../html/fields.ts';
import { fill, html, type Html } from '../../html/html.ts';
import type { Texts } from '../i18n.ts';
import { csrfField, fieldErrors, money, page, problemBox, type Problem, type View } from './layout.ts';
import type { Action } from './payment.ts';

/** What the form says, as typed (amounts as decimal text). */
export interface ActionForm {
  amount?: string;
  extra2?: string;
}

const TITLES: Record<Action, keyof Texts> = { refund: 'refundTitle', complete: 'completeTitle', void: 'voidTitle' };
const REFUSED: Record<Action, keyof Texts> = {
  refund: 'refundRefused',
  complete: 'completeRefused',
  void: 'voidRefused',
};

/** The amount an action is about when the form leaves it out: everything it can take. */
export function fullAmount(action: Action, row: PaymentRow): number {
  return action === 'complete' || action === 'void' ? row.amount : returnable(row).total;
}

/** What the form starts with: the whole amount, and the split account's whole remaining share. */
export function initialForm(action: Action, row: PaymentRow): ActionForm {
  const split = row.split_iban
    ? formatMinor(action === 'void' ? (row.split_amount ?? 0) : returnable(row).split)
    : undefined;
  return { amount: action === 'void' ? undefined : formatMinor(fullAmount(action, row)), extra2: split };
}

const base = (row: PaymentRow) => `/dashboard/payments/${row.pay_id}`;

function lead(v: View, action: Action, row: PaymentRow): string {
  const amount = money(v, fullAmount(action, row), row.currency);
  return fill(v.t[action === 'refund' ? 'refundLead' : action === 'complete' ? 'completeLead' : 'voidLead'], {
    amount,
  });
}

const hidden = (name: string, value: string | undefined) =>
  value === undefined ? html`` : html`<input type="hidden" name="${name}" value="${value}">`;

/** The form of an action, with a refusal above it when there was one. */
export function actionPage(
  v: View,
  action: Action,
  row: PaymentRow,
  form: ActionForm,
  nonce: string,
  problem?: Problem,
): string {
  const t = v.t;
  const splitLeft = row.split_iban ? returnable(row).split : 0;
  const err = fieldErrors(problem);
  const fields: Html[] = [];
  if (action !== 'void') {
    fields.push(
      field('amount', action === 'refund' ? t.refundAmount : t.completeAmount, {
        autocomplete: 'off',
        inputmode: 'decimal',
        value: form.amount,
        maxlength: 20,
        error: err.amount,
        errorLang: 'en',
        autofocus: !!err.amount,
      }),
    );
  }
  if (row.split_iban && action !== 'complete') {
    fields.push(
      field('extra2', fill(t.splitShare, { iban: row.split_iban }), {
        autocomplete: 'off',
        inputmode: 'decimal',
        value: form.extra2,
        maxlength: 20,
        required: false,
        hint: fill(t.splitShareHint, { amount: money(v, splitLeft, row.currency) }),
        error: err.extra2,
        errorLang: 'en',
        autofocus: !err.amount && !!err.extra2,
      }),
    );
  }
  const body = html`<p class="crumbs"><a href="/dashboard/payments">${t.paymentsTitle}</a> › <a href="${base(row)}"><code>${row.pay_id}</code></a></p>
<h1>${t[TITLES[action]]}</h1>
<p class="lead">${lead(v, action, row)}</p>
${problem ? problemBox(v, t[REFUSED[action]], problem) : ''}
<section class="narrow"><form method="post" action="${base(row)}/${action}" class="stack" data-busy>${csrfField(v)}${hidden('nonce', nonce)}${hidden('step', 'review')}
${fields}
<div class="actions"><button type="submit" class="primary">${t.continue}</button><a class="button secondary" href="${base(row)}">${t.cancel}</a></div>
</form></section>`;
  return page(v, t[TITLES[action]], body, 'payments');
}

/** The confirmation step: what will happen, in words and amounts, and one button that does it. */
export function confirmPage(
  v: View,
  action: Action,
  row: PaymentRow,
  form: ActionForm,
  amount: number,
  splitAmount: number | null,
  nonce: string,
): string {
  const t = v.t;
  const sum = money(v, amount, row.currency);
  const question = fill(
    t[action === 'refund' ? 'confirmRefund' : action === 'complete' ? 'confirmComplete' : 'confirmVoid'],
    { amount: sum, payId: row.pay_id },
  );
  const button =
    action === 'void' ? t.doVoid : fill(t[action === 'refund' ? 'doRefund' : 'doComplete'], { amount: sum });
  const body = html`<p class="crumbs"><a href="/dashboard/payments">${t.paymentsTitle}</a> › <a href="${base(row)}"><code>${row.pay_id}</code></a></p>
<h1>${t.confirmTitle}</h1>
<div class="confirm"><p class="question">${question}</p>
${splitAmount !== null ? html`<p>${fill(t.confirmSplit, { amount: money(v, splitAmount, row.currency) })}</p>` : ''}
<p class="warn">${t.cannotUndo}</p></div>
<form method="post" action="${base(row)}/${action}" class="stack narrow" data-busy>${csrfField(v)}${hidden('nonce', nonce)}${hidden('step', 'confirm')}${hidden('amount', form.amount)}${hidden('extra2', form.extra2)}
<div class="actions"><button type="submit" class="${action === 'void' ? 'danger' : 'primary'}">${button}</button><a class="button secondary" href="${base(row)}">${t.cancel}</a></div>
</form>`;
  return page(v, t.confirmTitle, body, 'payments');
}
