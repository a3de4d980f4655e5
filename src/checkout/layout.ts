// The parts every checkout page shares: the page shell (header with the shop and the language
// switch, footer with the trust line), the amount summary, notices, hidden form fields and the
// sandbox hint box.
import type { Merchant } from '../merchants/merchant.ts';
import type { PaymentRow } from '../payments/row.ts';
import { formatAmount, formatTime } from '../html/format.ts';
import type { FormMemory } from './form-memory.ts';
import { html, type Html } from '../html/html.ts';
import { languageSwitch, type LanguageLink } from '../html/language-switch.ts';
import type { Texts } from './i18n.ts';
import { acceptedMarks, icon, type IconName } from './marks.ts';

export interface PageContext {
  payment: PaymentRow;
  merchant: Merchant;
  t: Texts;
  csrf: string;
  now: Date;
  timeZone: string;
  sandbox: boolean;
  maxAttempts: number;
  /** This page in every other language. */
  languages: LanguageLink[];
  /** What this browser typed into the card form last time (never the number or the code). */
  memory: FormMemory;
}

export interface ShellOptions {
  t: Texts;
  title: string;
  merchant?: Merchant | null;
  /** Shown instead of a shop (the simulated bank's own pages, error pages). */
  brandName?: string;
  brandCss?: string;
  /** This page in every other language (none: a page that cannot be switched, a form's error). */
  languages?: LanguageLink[];
  sandbox?: boolean;
  /** Seconds between reloads without JavaScript (the page script polls instead). */
  refresh?: number;
}

export const money = (c: PageContext, minor: number) => formatAmount(minor, c.payment.currency, c.t.lang);
export const base = (c: PageContext) => `/checkout/${c.payment.pay_id}`;

function brand(merchant: Merchant | null | undefined, name = 'Karibche'): Html {
  if (!merchant)
    return html`<div class="brand">${icon('lock', 'brand-lock')}<span class="merchant">${name}</span></div>`;
  const initial = [...merchant.name.trim()][0]?.toUpperCase() ?? '';
  const logo = merchant.logoUrl
    ? html`<img class="logo" src="${merchant.logoUrl}" alt="">`
    : html`<span class="initial" aria-hidden="true">${initial}</span>`;
  return html`<div class="brand">${logo}<span class="merchant">${merchant.name}</span></div>`;
}

/** A whole page: head, header, main content, footer. */
export function shell(o: ShellOptions, main: Html): string {
  return html`<!doctype html>
<html lang="${o.t.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${o.title}${o.merchant ? ` — ${o.merchant.name}` : ''}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">${o.brandCss ? html`<link rel="stylesheet" href="${o.brandCss}">` : ''}
<script src="/checkout/assets/checkout.js" defer></script>${o.refresh ? html`<noscript><meta http-equiv="refresh" content="${o.refresh}"></noscript>` : ''}
</head><body>
<header class="top">${o.sandbox ? html`<p class="test-mode">${o.t.testMode}</p>` : ''}<div class="bar">${brand(o.merchant, o.brandName)}
${languageSwitch(o.languages ?? [], icon('globe'))}</div></header>
<main class="sheet">
${main}
</main>
<footer class="trust"><p class="secure">${icon('lock')}<span>${o.t.secure}</span></p>${acceptedMarks(o.t.acceptedCards)}<p>${o.t.secureDetail}</p></footer>
</body></html>`.value;
}

/** The page shell for a payment's page. */
export const paymentShell = (c: PageContext, title: string, main: Html, refresh?: number) =>
  shell(
    {
      t: c.t,
      title,
      merchant: c.merchant,
      brandCss: c.merchant.brandColor ? `${base(c)}/brand.css` : undefined,
      languages: c.languages,
      sandbox: c.sandbox,
      refresh,
    },
    main,
  );

/** The amount as the page's heading, the purchase and the time left. */
export function summary(c: PageContext): Html {
  const p = c.payment;
  const left = Math.max(0, Math.round((p.expires_at.getTime() - c.now.getTime()) / 1000));
  return html`<section class="summary">
<h1><span class="label">${c.t.amountToPay}</span> <span class="amount">${money(c, p.amount)}</span></h1>
${p.description ? html`<p class="desc">${p.description}</p>` : ''}
<p class="timer">${icon('clock')}<span>${c.t.timeLeft}: <span data-seconds-left="${left}" role="timer">${c.t.expiresAt} ${formatTime(c.t, p.expires_at, c.timeZone)}</span></span></p>
</section>`;
}

const NOTICE_ICONS: Record<'bad' | 'info' | 'ok', IconName> = { bad: 'cross', info: 'info', ok: 'check' };

/** A message above a form: an error (announced at once) or a neutral status. */
export const notice = (kind: 'bad' | 'info' | 'ok', body: Html | string, id?: string) =>
  html`<div class="notice notice-${kind}" role="${kind === 'bad' ? 'alert' : 'status'}"${id ? html` id="${id}"` : ''}>${icon(NOTICE_ICONS[kind])}<div>${body}</div></div>`;

/** Hidden fields every checkout form carries. */
export const hiddenFields = (c: PageContext, method?: number) =>
  html`<input type="hidden" name="csrf" value="${c.csrf}">${method ? html`<input type="hidden" name="method" value="${method}">` : ''}<input type="hidden" name="lang" value="${c.t.lang}">`;

/** The sandbox's hints for testers (only in sandbox mode). */
export const sandboxBox = (c: PageContext, body: Html) =>
  c.sandbox ? html`<div class="sandbox"><p class="sandbox-title">${c.t.sandboxTitle}</p>${body}</div>` : html``;
