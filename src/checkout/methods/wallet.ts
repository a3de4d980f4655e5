// The wallet sheet shared by Apple Pay and Google Pay: the card in the device, the shop, the total.
import { methodLabel } from '../../payments/methods/index.ts';
import { fill, fillHtml, html, type Html } from '../../html/html.ts';
import { base, hiddenFields, money, sandboxBox, type PageContext } from '../layout.ts';
import { schemeMark, SCHEMES, walletGlyph, walletMark, type Wallet } from '../marks.ts';
import { languageOf, type CheckoutMethod } from './method.ts';
import { spotForm } from './spot.ts';

function walletPanel(c: PageContext, method: number, wallet: Wallet): Html {
  const t = c.t;
  const name = methodLabel(method, languageOf(t));
  const visa = SCHEMES[0]!;
  return html`<form class="panel wallet wallet-${wallet}" method="post" action="${base(c)}/pay" data-busy="${t.busy}">${hiddenFields(c, method)}
<div class="wallet-sheet">
<h2 class="wallet-head"><span class="sr-only">${name}</span><span aria-hidden="true">${walletMark(wallet)}</span></h2>
<p>${t.walletText}</p>
<dl class="rows"><div><dt>${t.walletCard}</dt><dd>${schemeMark(visa)}<span>${visa.name} <span aria-hidden="true">••••</span><span class="sr-only">${t.cardEnding}</span> 4242</span></dd></div>
<div><dt>${t.payTo}</dt><dd>${c.merchant.name}</dd></div>
<div class="total"><dt>${t.walletTotal}</dt><dd>${money(c, c.payment.amount)}</dd></div></dl>
<button type="submit" name="outcome" value="approve" class="wallet-button"><span>${fillHtml(t.walletPayWith, { wallet: walletMark(wallet, true) })}</span></button>
<button type="submit" name="outcome" value="cancel" class="secondary">${t.walletCancel}</button>
</div>
${sandboxBox(c, html`<p>${t.sbWallet}</p><button type="submit" name="outcome" value="decline" class="link-button">${t.sbWalletDecline}</button>`)}
</form>`;
}

/** A wallet method's checkout module: the sheet, and back to the page when the customer closes it. */
export const walletCheckout = (code: number, order: number, wallet: Wallet): CheckoutMethod => ({
  code,
  order,
  icon: () => walletGlyph(wallet),
  panel: (c) => walletPanel(c, code, wallet),
  readForm: (form) => spotForm(form, 'wallet-cancelled'),
  notices: { 'wallet-cancelled': (t, name) => fill(t.noticeWalletCancelled, { wallet: name }) },
});
