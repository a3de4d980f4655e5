// The pay page's panel for each payment method: card form, Web QR code, internet bank login,
// Apple Pay and Google Pay sheets, installment application.
import { ceilDiv } from '../payments/money.ts';
import type { CardField, CardProblem } from '../payments/card.ts';
import { POLICY } from '../payments/rules/policy.ts';
import { BANK_USERS } from '../acquirer/bank-users.ts';
import { DELAYED_OUTCOME_MINUTES } from '../acquirer/test-cards.ts';
import { fill, fillHtml, html, type Html } from '../web/html.ts';
import { resultText, type Texts } from './i18n.ts';
import { field } from '../web/fields.ts';
import { base, hiddenFields, money, notice, sandboxBox, type PageContext } from './layout.ts';
import { fieldMarks, icon, schemeMark, SCHEMES, walletMark } from './marks.ts';

export const INSTALLMENT_TERMS = [3, 6, 12, 24] as const;
export const DEFAULT_TERM = 6;

export interface PanelState {
  cardProblems?: Partial<Record<CardField, CardProblem>>;
  /** The cardholder name and expiry just typed (after a failed validation; never the number or code). */
  holder?: string;
  expiry?: string;
  loginFailed?: boolean;
  username?: string;
  qrSvg?: Html;
  qrUrl?: string;
  /** The installment term the customer chose before. */
  term?: number;
}

export const methodName = (t: Texts, m: number) => (t as unknown as Record<string, string>)[`m${m}`] ?? String(m);
/** A method's name on its tile (where a long word may break: Texts.tiles). */
export const tileName = (t: Texts, m: number) => t.tiles[m] ?? methodName(t, m);

const CARD_FIELDS: CardField[] = ['number', 'expiry', 'securityCode', 'holder'];

function cardPanel(c: PageContext, st: PanelState): Html {
  const t = c.t;
  const e = st.cardProblems ?? {};
  const first = CARD_FIELDS.find((f) => e[f]);
  const err = (f: CardField) => (e[f] ? t[e[f]!] : undefined);
  const cards: [string, string][] = [
    ['4111 1111 1111 1111', t.sbApproved],
    ['4000 0000 0000 0002', t.sbDeclined],
    ['4000 0000 0000 9995', t.sbNoFunds],
    ['4000 0000 0000 3220', t.sb3ds],
  ];
  return html`<form class="panel" method="post" action="${base(c)}/pay" novalidate data-busy="${t.busy}">${hiddenFields(c, 5)}
<h2>${icon('card')}<span>${t.cardTitle}</span></h2>
${first ? notice('bad', t.fixErrors) : ''}
${field('number', t.cardNumber, { autocomplete: 'cc-number', inputmode: 'numeric', maxlength: 23, error: err('number'), autofocus: first === 'number', attrs: html` spellcheck="false" data-card-number`, after: fieldMarks() })}
<p class="sr-only" aria-live="polite" data-scheme-live="${t.cardType}"></p>
<div class="row"><div>${field('expiry', t.expiry, { autocomplete: 'cc-exp', inputmode: 'numeric', maxlength: 7, hint: t.expiryHint, error: err('expiry'), autofocus: first === 'expiry', value: st.expiry?.slice(0, 7), attrs: html` spellcheck="false" data-expiry` })}</div>
<div>${field('securityCode', t.securityCode, { autocomplete: 'cc-csc', inputmode: 'numeric', maxlength: POLICY.securityCodeDigits.max, hint: t.securityCodeHint, error: err('securityCode'), autofocus: first === 'securityCode', attrs: html` spellcheck="false" data-digits` })}</div></div>
${field('holder', t.holder, { autocomplete: 'cc-name', maxlength: POLICY.cardHolderMaxLength, error: err('holder'), autofocus: first === 'holder', value: (st.holder ?? c.memory.holder)?.slice(0, POLICY.cardHolderMaxLength), attrs: html` spellcheck="false"` })}
<button type="submit" class="primary">${icon('lock')}<span>${t.pay} ${money(c, c.payment.amount)}</span></button>
${sandboxBox(c, html`<ul class="test-list">${cards.map(([n, what]) => html`<li><code>${n}</code> — ${what}</li>`)}</ul><p>${t.sbAnyExpiry}</p>`)}
</form>`;
}

function qrPanel(c: PageContext, st: PanelState): Html {
  const t = c.t;
  const p = c.payment;
  const label = fill(t.qrImage, { amount: money(c, p.amount), merchant: c.merchant.name });
  return html`<section class="panel qr-panel" data-qr-status="${base(c)}/status" data-status="${p.status}" data-attempts="${p.attempts}" data-max-attempts="${c.maxAttempts}" data-result-url="${base(c)}?lang=${t.lang}" data-text-processing="${t.qrProcessing}" data-text-declined="${t.qrDeclined}" data-text-done="${t.qrDone}">
<h2>${icon('qr')}<span>${t.qrTitle}</span></h2>
<div class="qr-layout"><div class="qr" role="img" aria-label="${label}">${st.qrSvg ?? ''}</div>
<ol class="steps"><li>${t.qrStep1}</li><li>${t.qrStep2}</li><li>${t.qrStep3}</li></ol></div>
<p class="live" role="status"><span class="spinner" aria-hidden="true"></span><span data-live-text>${t.qrWaiting}</span></p>
${sandboxBox(c, html`<p>${t.sbQr}</p>`)}
<p class="center"><a class="secondary-link" href="${st.qrUrl ?? '#'}">${t.qrOpen}</a></p>
</section>`;
}

function bankPanel(c: PageContext, st: PanelState): Html {
  const t = c.t;
  const later = (text: string) => fill(text, { n: DELAYED_OUTCOME_MINUTES });
  const users = Object.entries(BANK_USERS).map(
    ([name, u]) =>
      html`<li><code>${name}</code> — ${u.delayed ? later(u.outcome === 'approve' ? t.sbUserSlowApprove : t.sbUserSlowDecline) : u.outcome === 'approve' ? t.sbUserDemo : resultText(t, u.declineCode ?? null)}</li>`,
  );
  return html`<form class="panel" method="post" action="${base(c)}/pay" novalidate data-busy="${t.busy}">${hiddenFields(c, 7)}
<h2>${icon('bank')}<span>${t.bankTitle}</span></h2>
${st.loginFailed ? notice('bad', t.loginFailed) : ''}
${field('username', t.username, { autocomplete: 'username', value: st.username, autofocus: st.loginFailed, maxlength: POLICY.bankLoginMaxLength, attrs: html` spellcheck="false" autocapitalize="none"` })}
${field('password', t.password, { type: 'password', autocomplete: 'current-password', maxlength: POLICY.bankLoginMaxLength })}
<button type="submit" class="primary">${icon('lock')}<span>${t.loginAndPay}</span></button>
${sandboxBox(c, html`<p>${t.sbBankUsers}</p><ul class="test-list">${users}</ul>`)}
</form>`;
}

function walletPanel(c: PageContext, method: 9 | 14): Html {
  const t = c.t;
  const wallet = methodName(t, method);
  const visa = SCHEMES[0]!;
  return html`<form class="panel wallet wallet-${method === 9 ? 'apple' : 'google'}" method="post" action="${base(c)}/pay" data-busy="${t.busy}">${hiddenFields(c, method)}
<div class="wallet-sheet">
<h2 class="wallet-head"><span class="sr-only">${wallet}</span><span aria-hidden="true">${walletMark(method)}</span></h2>
<p>${t.walletText}</p>
<dl class="rows"><div><dt>${t.walletCard}</dt><dd>${schemeMark(visa)}<span>${visa.name} <span aria-hidden="true">••••</span><span class="sr-only">${t.cardEnding}</span> 4242</span></dd></div>
<div><dt>${t.payTo}</dt><dd>${c.merchant.name}</dd></div>
<div class="total"><dt>${t.walletTotal}</dt><dd>${money(c, c.payment.amount)}</dd></div></dl>
<button type="submit" name="outcome" value="approve" class="wallet-button"><span>${fillHtml(t.walletPayWith, { wallet: walletMark(method, true) })}</span></button>
<button type="submit" name="outcome" value="cancel" class="secondary">${t.walletCancel}</button>
</div>
${sandboxBox(c, html`<p>${t.sbWallet}</p><button type="submit" name="outcome" value="decline" class="link-button">${t.sbWalletDecline}</button>`)}
</form>`;
}

/** Ertguli loyalty points (6): the customer spends points on the purchase, or cancels. */
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

function installmentPanel(c: PageContext, st: PanelState): Html {
  const t = c.t;
  const products = c.payment.installment_products ?? [];
  const chosen = INSTALLMENT_TERMS.includes(st.term as 6) ? st.term : DEFAULT_TERM;
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

/** The selected method's panel. */
export function panel(c: PageContext, method: number, st: PanelState): Html {
  switch (method) {
    case 5:
      return cardPanel(c, st);
    case 4:
      return qrPanel(c, st);
    case 7:
      return bankPanel(c, st);
    case 9:
    case 14:
      return walletPanel(c, method);
    case 8:
      return installmentPanel(c, st);
    case 6:
      return pointsPanel(c);
  }
  return html``;
}
