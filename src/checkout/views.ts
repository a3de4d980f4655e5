// The checkout page's HTML. Pure functions of the payment, the merchant and the texts.
import { dateFormat } from '../clock.ts';
import type { Merchant } from '../merchants/merchant.ts';
import { ceilDiv, formatMinor } from '../payments/money.ts';
import type { PaymentRow } from '../payments/row.ts';
import type { CardField, CardProblem } from '../payments/card.ts';
import { BANK_USERS } from '../acquirer/bank-users.ts';
import { html, type Html } from './html.ts';
import { resultText, type Texts } from './i18n.ts';

export interface PageContext {
  payment: PaymentRow;
  merchant: Merchant;
  t: Texts;
  csrf: string;
  now: Date;
  timeZone: string;
  sandbox: boolean;
  maxAttempts: number;
}

const METHOD_ORDER = [5, 4, 7, 9, 14, 8];
const methodName = (t: Texts, m: number) => (t as unknown as Record<string, string>)[`m${m}`] ?? String(m);
export const money = (minor: number, currency: string) => `${formatMinor(minor)} ${currency}`;
const base = (c: PageContext) => `/checkout/${c.payment.pay_id}`;
const langQuery = (c: PageContext) => `lang=${c.t.lang}`;

function layout(c: PageContext, title: string, body: Html, opts: { refresh?: number } = {}): string {
  const other = c.t.lang === 'ka' ? 'en' : 'ka';
  return html`<!doctype html>
<html lang="${c.t.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} — ${c.merchant.name}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">${c.merchant.brandColor ? html`<link rel="stylesheet" href="${base(c)}/brand.css">` : ''}
<script src="/checkout/assets/checkout.js" defer></script>${opts.refresh ? html`<meta http-equiv="refresh" content="${opts.refresh}">` : ''}
</head><body><main>
<header><div>${c.merchant.logoUrl ? html`<img src="${c.merchant.logoUrl}" alt="">` : ''}<span class="merchant">${c.merchant.name}</span></div>
<a class="lang" href="${base(c)}?lang=${other}" lang="${other}">${c.t.switchLanguage}</a></header>
${body}
<footer>${c.t.secure}</footer>
</main></body></html>`.value;
}

function summary(c: PageContext, withClock: boolean): Html {
  const p = c.payment;
  const left = Math.max(0, Math.round((p.expires_at.getTime() - c.now.getTime()) / 1000));
  const until = dateFormat(c.t.lang === 'ka' ? 'ka-GE' : 'en-GB', { timeZone: c.timeZone, hour: '2-digit', minute: '2-digit' }).format(p.expires_at);
  return html`<section class="summary" aria-label="${c.t.amount}">
${p.description ? html`<div>${p.description}</div>` : ''}
<div class="amount">${money(p.amount, p.currency)}</div>
${withClock ? html`<div class="muted">${c.t.timeLeft}: <span data-seconds-left="${left}" role="timer">${c.t.expiresAt} ${until}</span></div>` : ''}
</section>`;
}

function methodNav(c: PageContext, selected: number): Html {
  const methods = METHOD_ORDER.filter((m) => c.payment.methods.includes(m));
  if (methods.length < 2) return html``;
  return html`<nav aria-label="${c.t.chooseMethod}"><ul>${methods.map(
    (m) => html`<li><a href="${base(c)}?method=${m}&${langQuery(c)}"${m === selected ? html` aria-current="page"` : ''}>${methodName(c.t, m)}</a></li>`,
  )}</ul></nav>`;
}

export const defaultMethod = (p: PaymentRow) => METHOD_ORDER.find((m) => p.methods.includes(m)) ?? p.methods[0]!;

const hidden = (c: PageContext, method: number) =>
  html`<input type="hidden" name="csrf" value="${c.csrf}"><input type="hidden" name="method" value="${method}"><input type="hidden" name="lang" value="${c.t.lang}">`;

function field(name: string, label: string, opts: { type?: string; autocomplete: string; inputmode?: string; hint?: string; error?: string; value?: string }): Html {
  const errId = `${name}-error`;
  const hintId = `${name}-hint`;
  const described = [opts.error ? errId : '', opts.hint ? hintId : ''].filter(Boolean).join(' ');
  return html`<label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="${opts.type ?? 'text'}" autocomplete="${opts.autocomplete}"${opts.inputmode ? html` inputmode="${opts.inputmode}"` : ''} required${opts.value ? html` value="${opts.value}"` : ''}${described ? html` aria-describedby="${described}"` : ''}${opts.error ? html` aria-invalid="true"` : ''}>
${opts.hint ? html`<div class="muted" id="${hintId}">${opts.hint}</div>` : ''}${opts.error ? html`<p class="err" id="${errId}">${opts.error}</p>` : ''}`;
}

export interface PanelState {
  cardProblems?: Partial<Record<CardField, CardProblem>>;
  holder?: string;
  loginFailed?: boolean;
  qrSvg?: Html;
  qrUrl?: string;
}

function panel(c: PageContext, method: number, st: PanelState): Html {
  const t = c.t;
  const action = `${base(c)}/pay`;
  const payLabel = `${t.pay} ${money(c.payment.amount, c.payment.currency)}`;
  switch (method) {
    case 5: {
      const e = st.cardProblems ?? {};
      const msg = (f: CardField) => (e[f] ? t[e[f]!] : undefined);
      return html`<form method="post" action="${action}" novalidate>${hidden(c, 5)}
${Object.keys(e).length ? html`<p class="notice" role="alert">${t.fixErrors}</p>` : ''}
${field('number', t.cardNumber, { autocomplete: 'cc-number', inputmode: 'numeric', error: msg('number') })}
<div class="row"><div>${field('expiry', t.expiry, { autocomplete: 'cc-exp', inputmode: 'numeric', hint: t.expiryHint, error: msg('expiry') })}</div>
<div>${field('securityCode', t.securityCode, { type: 'password', autocomplete: 'cc-csc', inputmode: 'numeric', hint: t.securityCodeHint, error: msg('securityCode') })}</div></div>
${field('holder', t.holder, { autocomplete: 'cc-name', error: msg('holder'), value: st.holder })}
<button type="submit">${payLabel}</button>
${c.sandbox ? html`<p class="hint">Sandbox: 4111 1111 1111 1111 approves, 4000 0000 0000 0002 declines, 4000 0000 0000 3220 asks for 3-D Secure (1234).</p>` : ''}
</form>`;
    }
    case 4:
      return html`<section data-poll="${base(c)}/status" data-status="${c.payment.status}"><h2>${t.qrTitle}</h2><p>${t.qrText}</p>
<div class="qr" role="img" aria-label="QR">${st.qrSvg ?? ''}</div>
<p><a href="${st.qrUrl ?? '#'}">${t.qrOpen}</a></p></section>`;
    case 7:
      return html`<form method="post" action="${action}">${hidden(c, 7)}<h2>${t.bankTitle}</h2>
${st.loginFailed ? html`<p class="notice" role="alert">${t.loginFailed}</p>` : ''}
${field('username', t.username, { autocomplete: 'username' })}
${field('password', t.password, { type: 'password', autocomplete: 'current-password' })}
<button type="submit">${t.loginAndPay}</button>
${c.sandbox ? html`<p class="hint">Sandbox users (password demo): ${Object.keys(BANK_USERS).join(', ')}.</p>` : ''}
</form>`;
    case 9:
    case 14: {
      const wallet = methodName(t, method);
      return html`<form method="post" action="${action}">${hidden(c, method)}<div class="sheet"><h2>${wallet}</h2><p>${t.walletText}</p>
<p class="muted">${t.walletCard}: VISA •••• 4242</p>
<button type="submit" name="outcome" value="approve">${t.walletPay} ${wallet}</button>
<button type="submit" name="outcome" value="decline" class="secondary">${t.walletDecline}</button></div></form>`;
    }
    case 8: {
      const products = c.payment.installment_products ?? [];
      const terms = [3, 6, 12, 24];
      return html`<form method="post" action="${action}">${hidden(c, 8)}<h2>${t.installmentTitle}</h2>
<table><thead><tr><th scope="col">${t.product}</th><th scope="col">${t.price}</th><th scope="col">${t.quantity}</th></tr></thead>
<tbody>${products.map((p) => html`<tr><td>${p.name ?? '—'}</td><td>${money(p.price, c.payment.currency)}</td><td>${p.quantity}</td></tr>`)}</tbody></table>
<fieldset><legend>${t.term}</legend>${terms.map(
        (n, i) =>
          html`<label><input type="radio" name="term" value="${n}"${i === 1 ? html` checked` : ''}> ${n} ${t.months} — ${t.monthly}: ${money(ceilDiv(c.payment.amount, n), c.payment.currency)}</label>`,
      )}</fieldset>
<button type="submit" name="outcome" value="approve">${t.apply}</button>
${c.sandbox ? html`<button type="submit" name="outcome" value="decline" class="secondary">${t.applyDecline}</button>` : ''}</form>`;
    }
  }
  return html``;
}

/** The page while the payment waits for the customer: summary, methods, the selected method's panel. */
export function payPage(c: PageContext, method: number, st: PanelState = {}): string {
  const p = c.payment;
  const lastDeclined = p.attempts > 0 && p.result_code && p.result_code !== 'approved';
  const body = html`${summary(c, true)}
${lastDeclined ? html`<p class="notice" role="alert"><strong>${c.t.declined}.</strong> ${resultText(c.t, p.result_code)} ${c.t.attemptsLeft}: ${Math.max(0, maxAttemptsLeft(c))}</p>` : ''}
${methodNav(c, method)}
${panel(c, method, st)}`;
  return layout(c, c.t.title, body, { refresh: method === 4 ? 5 : undefined });
}

const maxAttemptsLeft = (c: PageContext) => c.maxAttempts - c.payment.attempts;

export function challengePage(c: PageContext, failed = false): string {
  const body = html`${summary(c, false)}<form method="post" action="${base(c)}/3ds">
<input type="hidden" name="csrf" value="${c.csrf}"><input type="hidden" name="lang" value="${c.t.lang}">
<h2>${c.t.challengeTitle}</h2><p>${c.t.challengeText}</p>
${failed ? html`<p class="notice" role="alert">${c.t.rc_decline_authentication_failed}</p>` : ''}
${field('code', c.t.challengeCode, { autocomplete: 'one-time-code', inputmode: 'numeric' })}
<button type="submit">${c.t.confirm}</button>
${c.sandbox ? html`<p class="hint">Sandbox: 1234 passes, any other code fails.</p>` : ''}</form>`;
  return layout(c, c.t.challengeTitle, body);
}

export function processingPage(c: PageContext): string {
  const body = html`${summary(c, false)}<section class="result" data-poll="${base(c)}/status" data-status="${c.payment.status}" aria-live="polite">
<h1>${c.t.processingTitle}</h1><p>${c.t.processingText}</p></section>`;
  return layout(c, c.t.processingTitle, body, { refresh: 3 });
}

/** The info message after a final status (and for a finished or expired payment visited again). */
export function resultPage(c: PageContext): string {
  const p = c.payment;
  const t = c.t;
  const [title, cls, detail] = (() => {
    switch (p.status) {
      case 'Succeeded':
        return [t.succeeded, 'ok', p.card_mask ?? ''];
      case 'WaitingConfirm':
        return [t.waitingConfirm, 'ok', t.waitingConfirmText];
      case 'Failed':
        return [t.failed, 'bad', resultText(t, p.result_code)];
      case 'Expired':
        return [t.expiredTitle, 'bad', ''];
      default:
        return [t.returnedTitle, 'ok', ''];
    }
  })();
  const body = html`${summary(c, false)}<section class="result" aria-live="polite"><h1 class="${cls}">${title}</h1>
${detail ? html`<p>${detail}</p>` : ''}${p.return_url ? html`<a class="button-link" href="${p.return_url}">${t.returnToShop}</a>` : ''}</section>`;
  return layout(c, title, body);
}

/** The simulated banking app that a Web QR code opens. */
export function bankAppPage(c: PageContext, action: string, done: boolean): string {
  const body = done
    ? html`<section class="result"><h1 class="ok">${c.t.cardApproved}</h1><p>${c.t.appDone}</p></section>`
    : html`${summary(c, false)}<form method="post" action="${action}"><input type="hidden" name="csrf" value="${c.csrf}"><input type="hidden" name="lang" value="${c.t.lang}">
<h2>${c.t.approveTitle}</h2><p>${c.t.payTo}: ${c.merchant.name}</p>
<button type="submit" name="outcome" value="approve">${c.t.approve}</button>
<button type="submit" name="outcome" value="decline" class="secondary">${c.t.decline}</button></form>`;
  return layout(c, c.t.approveTitle, body);
}

/** A page without a payment (unknown link, expired form, too many attempts, errors). */
export function messagePage(t: Texts, title: string, text: string): string {
  return html`<!doctype html><html lang="${t.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><link rel="stylesheet" href="/checkout/assets/checkout.css"></head>
<body><main><section class="result"><h1 class="bad">${title}</h1><p>${text}</p></section><footer>${t.secure}</footer></main></body></html>`.value;
}
