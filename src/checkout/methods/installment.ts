// The installment application (8): the products, the term, apply or cancel.
import { ceilDiv } from '../../payments/money.ts';
import { fill, html, type Html } from '../../html/html.ts';
import { base, hiddenFields, money, sandboxBox, type PageContext } from '../layout.ts';
import { icon } from '../marks.ts';
import type { CheckoutMethod, PanelState } from './method.ts';
import { spotForm } from './spot.ts';

export const INSTALLMENT_TERMS = [3, 6, 12, 24] as const;
export const DEFAULT_TERM = 6;

/** A term the customer chose (a form field or the page's query), if it is one of ours. */
export const termOf = (v: unknown) => INSTALLMENT_TERMS.find((n) => String(n) === v);

function installmentPanel(c: PageContext, st: PanelState): Html {
  const t = c.t;
  const products = c.payment.installment_products ?? [];
  const chosen = INSTALLMENT_TERMS.find((n) => n === st.term) ?? DEFAULT_TERM;
  return html`<form class="panel" method="post" action="${base(c)}/pay" data-busy="${t.busy}">${hiddenFields(c, 8)}
<h2>${icon('calendar')}<span>${t.installmentTitle}</span></h2>
<table class="products"><thead><tr><th scope="col">${t.product}</th><th scope="col" class="num">${t.quantity}</th><th scope="col" class="num">${t.price}</th></tr></thead>
<tbody>${products.map((p) => html`<tr><td>${p.name ?? '—'}</td><td class="num">${p.quantity}</td><td class="num">${money(c, p.price)}</td></tr>`)}</tbody></table>
<fieldset class="terms"><legend>${t.term}</legend><div class="term-grid">${INSTALLMENT_TERMS.map(
    (n) =>
      html`<label class="term"><input type="radio" name="term" value="${n}"${n === chosen ? html` checked` : ''}><span class="term-text"><span class="term-months">${n} ${t.months}</span> <span class="term-monthly">${fill(t.perMonth, { amount: money(c, ceilDiv(c.payment.amount, n)) })}</span></span></label>`,
  )}</div></fieldset>
<button type="submit" name="outcome" value="approve" class="primary">${icon('lock')}<span>${t.apply}</span></button>
<button type="submit" name="outcome" value="cancel" class="secondary">${t.installmentCancel}</button>
${sandboxBox(c, html`<p>${t.sbInstallment}</p><button type="submit" name="outcome" value="decline" class="link-button">${t.sbInstallmentDecline}</button>`)}
</form>`;
}

export const installmentCheckout: CheckoutMethod = {
  code: 8,
  order: 60,
  icon: () => icon('calendar'),
  panel: installmentPanel,
  // The chosen term stays selected when the customer comes back to the page.
  readForm(form) {
    const term = termOf(form.term);
    return spotForm(form, 'installment-cancelled', term ? { term } : {});
  },
  notices: { 'installment-cancelled': (t) => t.noticeInstallmentCancelled },
};
