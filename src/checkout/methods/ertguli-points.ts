// Ertguli loyalty points (6): the customer spends points on the purchase, or cancels.
import { fill, html, type Html } from '../../html/html.ts';
import { base, hiddenFields, money, sandboxBox, type PageContext } from '../layout.ts';
import { icon } from '../marks.ts';
import type { CheckoutMethod } from './method.ts';
import { spotForm } from './spot.ts';

function pointsPanel(c: PageContext): Html {
  const t = c.t;
  return html`<form class="panel points" method="post" action="${base(c)}/pay" data-busy="${t.busy}">${hiddenFields(c, 6)}
<h2>${icon('star')}<span>${t.pointsTitle}</span></h2>
<p>${t.pointsText}</p>
<dl class="rows"><div><dt>${t.payTo}</dt><dd>${c.merchant.name}</dd></div>
<div class="total"><dt>${t.walletTotal}</dt><dd>${money(c, c.payment.amount)}</dd></div></dl>
<button type="submit" name="outcome" value="approve" class="primary">${icon('star')}<span>${fill(t.pointsPay, { amount: money(c, c.payment.amount) })}</span></button>
<button type="submit" name="outcome" value="cancel" class="secondary">${t.walletCancel}</button>
${sandboxBox(c, html`<p>${t.sbPoints}</p><button type="submit" name="outcome" value="decline" class="link-button">${t.sbPointsDecline}</button>`)}
</form>`;
}

export const ertguliPointsCheckout: CheckoutMethod = {
  code: 6,
  order: 70,
  icon: () => icon('star'),
  panel: pointsPanel,
  readForm: (form) => spotForm(form, 'points-cancelled'),
  notices: { 'points-cancelled': (t) => t.noticePointsCancelled },
  // Too few points is not "funds" in the customer's words.
  declineText: (t, code) => (code === 'decline_not_sufficient_funds' ? t.rcPointsNoFunds : undefined),
};
