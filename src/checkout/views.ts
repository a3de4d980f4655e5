// The checkout's pages. Pure functions of the payment, the merchant and the texts.
import { headerSafeUrl } from '../html/location.ts';
import type { PaymentRow } from '../payments/row.ts';
import { STATUS } from '../payments/state-machine.ts';
import { formatDate, formatTime } from '../html/format.ts';
import { fill, html, type Html } from '../html/html.ts';
import type { LanguageLink } from '../html/language-switch.ts';
import { resultText, type Texts } from './i18n.ts';
import { field } from '../html/fields.ts';
import {
  base,
  hiddenFields,
  money,
  notice,
  paymentShell,
  sandboxBox,
  shell,
  summary,
  type PageContext,
} from './layout.ts';
import { icon, schemeMark, schemeOf, SCHEMES } from './marks.ts';
import { DELAYED_OUTCOME_MINUTES } from '../acquirer/simulation/test-cards.ts';
import {
  checkoutMethodOf,
  inTileOrder,
  methodIcon,
  methodName,
  methodNotices,
  tileName,
  type PanelState,
} from './methods/index.ts';

export type { PageContext } from './layout.ts';
export type { PanelState } from './methods/index.ts';

export const defaultMethod = (p: PaymentRow) => inTileOrder(p.methods)[0] ?? p.methods[0]!;

/**
 * Why the customer is back on the pay page without a decline (a cancellation costs nothing): the
 * method modules' cancellations, and the 3-D Secure page's.
 */
export type Notice = string;
export const isNotice = (v: unknown): v is Notice =>
  v === '3ds-cancelled' || (typeof v === 'string' && Object.hasOwn(methodNotices(), v));

/** Why the payment was declined, in the customer's words (too few points is not "funds"). */
const declineText = (t: Texts, p: PaymentRow) =>
  (p.payment_method !== null && checkoutMethodOf(p.payment_method)?.declineText?.(t, p.result_code)) ||
  resultText(t, p.result_code);

function methodNav(c: PageContext, selected: number): Html {
  const methods = inTileOrder(c.payment.methods);
  if (methods.length < 2) return html``;
  return html`<nav class="methods" aria-label="${c.t.chooseMethod}"><ul class="n${methods.length}">${methods.map(
    (m) =>
      html`<li><a href="${base(c)}?method=${m}&amp;lang=${c.t.lang}"${m === selected ? html` aria-current="page"` : ''}>${methodIcon(m)}<span>${tileName(c.t, m)}</span></a></li>`,
  )}</ul></nav>`;
}

const attemptsLeft = (c: PageContext) =>
  html` <span class="attempts">${c.t.attemptsLeft}: ${Math.max(0, c.maxAttempts - c.payment.attempts)}</span>`;

function payNotice(c: PageContext, method: number, shown: Notice | undefined): Html {
  const t = c.t;
  const p = c.payment;
  const cancelled = shown === undefined ? undefined : methodNotices()[shown];
  if (cancelled) return notice('info', cancelled(t, methodName(t, method)));
  if (shown === '3ds-cancelled') return notice('info', html`${t.notice3dsCancelled}${attemptsLeft(c)}`);
  if (p.attempts > 0 && p.result_code && p.result_code !== 'approved') {
    return notice('bad', html`<strong>${t.declined}.</strong> ${declineText(t, p)}${attemptsLeft(c)}`);
  }
  return html``;
}

/** The page while the payment waits for the customer: amount, methods, the selected method's panel. */
export function payPage(c: PageContext, method: number, st: PanelState = {}, shown?: Notice): string {
  const body = html`${summary(c)}
${payNotice(c, method, shown)}
${methodNav(c, method)}
${checkoutMethodOf(method)?.panel(c, st) ?? ''}`;
  return paymentShell(c, c.t.title, body, checkoutMethodOf(method)?.refreshSeconds);
}

/** A receipt-like list of label/value rows. */
const rows = (items: [string, Html | string | null | undefined][], cls = 'receipt') =>
  html`<dl class="${cls}">${items.filter(([, v]) => v).map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;

/** "Visa •••• 1111": the scheme and the last four digits only (never the first six). */
function cardLine(
  t: Texts,
  numberOrMask: string | null | undefined,
  last4 = numberOrMask?.slice(-4),
  scheme = schemeOf(numberOrMask),
): Html | null {
  if (!last4) return null;
  return html`<span class="card-line">${scheme ? schemeMark(scheme) : icon('card')}<span>${scheme ? `${scheme.name} ` : ''}<span aria-hidden="true">••••</span><span class="sr-only">${t.cardEnding}</span> ${last4}</span></span>`;
}

/** The 3-D Secure step, styled as the card issuer's page: scheme, masked card, amount, shop, code. */
export function challengePage(c: PageContext, codeSent = false): string {
  const t = c.t;
  const scheme = SCHEMES.find((s) => s.id === c.memory.scheme);
  const body = html`<section class="acs">
<div class="acs-head"><span class="issuer">${icon('bank')}<span>${t.issuer}</span></span><span class="acs-badge">${scheme ? schemeMark(scheme) : ''}${icon('shield')}<span>3-D Secure</span></span></div>
<h1>${t.challengeTitle}</h1>
<p>${t.challengeText}</p>
${rows([
  [t.merchant, c.merchant.name],
  [t.amount, money(c, c.payment.amount)],
  [t.date, `${formatDate(t, c.now, c.timeZone)}, ${formatTime(t, c.now, c.timeZone)}`],
  [t.card, c.memory.last4 ? cardLine(t, null, c.memory.last4, scheme) : null],
])}
${codeSent ? notice('ok', t.codeSent) : ''}
<form method="post" action="${base(c)}/3ds" novalidate data-busy="${t.busy}">${hiddenFields(c)}
${field('code', t.challengeCode, { autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 8, attrs: html` spellcheck="false" data-digits` })}
<button type="submit" class="primary">${t.confirm}</button>
<div class="acs-actions"><button type="submit" name="action" value="resend" class="link-button">${t.resendCode}</button><button type="submit" name="action" value="cancel" class="link-button">${t.cancelPayment}</button></div>
</form>
${sandboxBox(c, html`<p>${t.sb3dsCode}</p>`)}
</section>`;
  return paymentShell(c, t.challengeTitle, body);
}

export function processingPage(c: PageContext): string {
  const t = c.t;
  const body = html`<section class="result" data-poll="${base(c)}/status" data-status="${c.payment.status}">
<div class="result-icon pending"><span class="spinner" aria-hidden="true"></span></div>
<h1>${t.processingTitle}</h1><p role="status">${t.processingText}</p>
${rows([
  [t.merchant, c.merchant.name],
  [t.amount, money(c, c.payment.amount)],
])}
</section>`;
  return paymentShell(c, t.processingTitle, body, 3);
}

interface Outcome {
  title: string;
  kind: 'ok' | 'bad' | 'info';
  text?: string;
}

function outcomeOf(t: Texts, p: PaymentRow): Outcome {
  switch (p.status) {
    case STATUS.succeeded:
      return { title: t.succeeded, kind: 'ok' };
    case STATUS.waitingConfirm:
    case STATUS.completionProcessing:
      return { title: t.waitingConfirm, kind: 'ok', text: t.waitingConfirmText };
    case STATUS.failed:
      return { title: t.failed, kind: 'bad', text: `${declineText(t, p)} ${t.failedText}` };
    case STATUS.expired:
      return { title: t.expiredTitle, kind: 'bad', text: t.expiredText };
    case STATUS.partialReturned:
      return { title: t.partialReturnedTitle, kind: 'info' };
    case STATUS.cancelProcessing:
      return { title: t.returningTitle, kind: 'info' };
    default:
      return { title: t.returnedTitle, kind: 'info' };
  }
}

/** The info message after a final status (and for a finished or expired payment visited again). */
export function resultPage(c: PageContext): string {
  const p = c.payment;
  const t = c.t;
  const o = outcomeOf(t, p);
  const at = p.paid_at ?? p.updated_at;
  const method = p.payment_method ? (p.card_mask ? cardLine(t, p.card_mask) : methodName(t, p.payment_method)) : null;
  const body = html`<section class="result result-${o.kind}">
<div class="result-icon">${icon(o.kind === 'ok' ? 'check' : o.kind === 'bad' ? 'cross' : 'undo')}</div>
<h1>${o.title}</h1>
<p class="result-amount">${money(c, p.amount)}</p>
${o.text ? html`<p>${o.text}</p>` : ''}
${rows([
  [t.merchant, c.merchant.name],
  [t.purchase, p.description],
  [t.orderNumber, p.merchant_payment_id],
  [t.date, formatDate(t, at, c.timeZone)],
  [t.time, formatTime(t, at, c.timeZone)],
  [t.method, method],
  [t.returned, p.returned_amount > 0 ? money(c, p.returned_amount) : null],
  [t.reference, html`<span class="ref">${p.pay_id}</span>`],
  [t.bankReference, p.rrn ? html`<span class="ref">${p.rrn}</span>` : null],
])}
${shopLink(p.return_url, t.returnToShop)}
</section>`;
  return paymentShell(c, o.title, body);
}

/** The simulated banking app that a Web QR code opens (the customer's phone, in real life). */
export function bankAppPage(c: PageContext, action: string, answered = false): string {
  const t = c.t;
  const p = c.payment;
  const details = rows([
    [t.payTo, c.merchant.name],
    [t.amount, money(c, p.amount)],
  ]);
  let body: Html;
  // Still payable and not answered just now: the approval form (again, after an earlier decline).
  if (p.status === STATUS.created && !answered) {
    const later = (text: string) => fill(text, { n: DELAYED_OUTCOME_MINUTES });
    body = html`<section class="bank-app"><h1>${t.approveTitle}</h1>${details}
<form method="post" action="${action}" data-busy="${t.busy}">${hiddenFields(c)}
<button type="submit" name="outcome" value="approve" class="primary">${t.approve}</button>
<button type="submit" name="outcome" value="decline" class="secondary">${t.decline}</button>
${sandboxBox(c, html`<p>${later(t.sbAppLater)}</p><button type="submit" name="outcome" value="approve-later" class="link-button">${later(t.sbApproveLater)}</button><br><button type="submit" name="outcome" value="decline-later" class="link-button">${later(t.sbDeclineLater)}</button>`)}</form></section>`;
  } else if (p.status === STATUS.processing) {
    // The bank has the answer and sends it later (a sandbox late answer).
    body = html`<section class="result"><div class="result-icon pending">${icon('clock')}</div><h1>${t.qrProcessing}</h1>${details}<p>${t.appDone}</p></section>`;
  } else {
    const ok = p.status === STATUS.succeeded || p.status === STATUS.waitingConfirm;
    const title = ok ? t.cardApproved : p.status === STATUS.expired ? t.expiredTitle : t.declined;
    body = html`<section class="result result-${ok ? 'ok' : 'bad'}"><div class="result-icon">${icon(ok ? 'check' : 'cross')}</div><h1>${title}</h1>${details}<p>${t.appDone}</p></section>`;
  }
  return shell({ t, title: t.approveTitle, brandName: t.issuer, languages: c.languages, sandbox: c.sandbox }, body);
}

/** A page without a payment (unknown link, expired form, too many attempts, errors). */
export function messagePage(t: Texts, title: string, text: string, languages?: LanguageLink[]): string {
  const body = html`<section class="result result-bad"><div class="result-icon">${icon('cross')}</div><h1>${title}</h1>${text ? html`<p>${text}</p>` : ''}</section>`;
  return shell({ t, title, languages }, body);
}

/** The way back to the shop: its return URL as the redirect would take it, or no link when it has none. */
function shopLink(returnUrl: string | null, label: string) {
  const href = returnUrl ? headerSafeUrl(returnUrl) : null;
  return href ? html`<a class="primary" href="${href}">${label}</a>` : '';
}
