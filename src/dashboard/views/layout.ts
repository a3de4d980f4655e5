// The parts every dashboard page shares: the page shell (header with the shop, the user, the
// language switch and sign-out; the section navigation; footer), notices, the problem box that
// shows a refusal exactly as the API words it, tables, definition lists, amounts and times.
import { dateFormat } from '../../clock.ts';
import type { Merchant } from '../../merchants/merchant.ts';
import { formatAmount } from '../../html/format.ts';
import type { PaymentRow } from '../../payments/row.ts';
import { fill, html, type Html } from '../../html/html.ts';
import { languageSwitch, type LanguageLink } from '../../html/language-switch.ts';
import { named, type Texts } from '../i18n.ts';

export type Section = 'payments' | 'callbacks' | 'developers' | 'settings';

/** Who is signed in, for the header and every form. */
export interface Account {
  email: string;
  merchant: Merchant;
  /** The session's CSRF token, in every form. */
  csrf: string;
}

/** What every page is rendered with. */
export interface View {
  t: Texts;
  account: Account | null;
  sandbox: boolean;
  timeZone: string;
  /** This page in every other language. */
  languages: LanguageLink[];
}

/** A refusal as the merchant API answers it (api/problem.ts problemBody): rendered word for word. */
export interface Problem {
  title: string;
  detail: string;
  systemCode?: string;
  invalidParams?: { name: string; reason: string }[];
  requestId?: string;
}

const SECTIONS: readonly [Section, keyof Texts][] = [
  ['payments', 'navPayments'],
  ['callbacks', 'navCallbacks'],
  ['developers', 'navDevelopers'],
  ['settings', 'navSettings'],
];

export const money = (v: View, minor: number, currency: string) => formatAmount(minor, currency, v.t.lang);

/** Date and time to the second, in the gateway's time zone ("24 Nov 2026, 14:05:09"). */
export const when = (v: View, at: Date | string | null | undefined): string =>
  at
    ? dateFormat(v.t.locale, {
        timeZone: v.timeZone,
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(at))
    : v.t.none;

/** Date and time to the minute, for the rows of a list ("24 Nov 2026, 14:05"). */
export const whenShort = (v: View, at: Date | string) =>
  dateFormat(v.t.locale, {
    timeZone: v.timeZone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(at));

/** The session's CSRF token as a hidden field. */
export const csrfField = (v: View) => html`<input type="hidden" name="csrf" value="${v.account?.csrf ?? ''}">`;

/** A technical value (an id, a URL, a body): kept as written, never translated. */
export const code = (value: string | number | null | undefined) =>
  value === null || value === undefined || value === ''
    ? html`<span class="none">—</span>`
    : html`<code>${String(value)}</code>`;

export const notice = (kind: 'ok' | 'info' | 'bad', body: Html | string) =>
  html`<div class="notice notice-${kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${body}</div>`;

/** A refusal: our heading, then the API's own words (English, as the API answers them). */
export function problemBox(v: View, heading: string, p: Problem): Html {
  const fields = p.invalidParams ?? [];
  // One field whose words are the detail already: not said twice.
  const listed = fields.length > 1 || (fields.length === 1 && p.detail !== `${fields[0]!.name} ${fields[0]!.reason}`);
  return html`<div class="notice notice-bad problem" role="alert"><p class="problem-title">${heading}</p>
<p lang="en" class="problem-detail">${p.detail}</p>
${listed ? html`<ul lang="en" class="problem-fields">${fields.map((f) => html`<li><code>${f.name}</code> ${f.reason}</li>`)}</ul>` : ''}
${p.systemCode ? html`<p class="problem-code">${v.t.systemCode}: <code>${p.systemCode}</code></p>` : ''}</div>`;
}

/** The refusal's reason for each field it names, to show under the form's fields. */
export const fieldErrors = (p: Problem | undefined): Record<string, string> =>
  Object.fromEntries((p?.invalidParams ?? []).map((f) => [f.name, f.reason]));

/** A list of label/value pairs; rows without a value are left out. */
export const pairs = (items: [string, Html | string | number | null | undefined][], cls = 'pairs') =>
  html`<dl class="${cls}">${items.filter(([, value]) => value !== null && value !== undefined && value !== '').map(([k, value]) => html`<div><dt>${k}</dt><dd>${value}</dd></div>`)}</dl>`;

export type Cell = Html | string | number | null | undefined;

export interface Column {
  label: string;
  /** Class of the column's cells (num, nowrap, check). */
  cls?: string;
  /** Only for assistive technology (a column of checkboxes). */
  hideLabel?: boolean;
}

/** A row's cells, in column order; with `cls`, a class for the row. */
export type Row = Cell[] | { cls: string; cells: Cell[] };

/**
 * A data table inside a region that scrolls sideways on a narrow screen (the region can take focus
 * so a keyboard can scroll it). Each cell carries its column's name, so below 600 px the rows stack
 * as cards that label every value (dashboard.css).
 */
export function table(caption: string, columns: Column[], rows: Row[], cls = ''): Html {
  const body = rows.map((r) => {
    const [rowCls, cells] = Array.isArray(r) ? ['', r] : [r.cls, r.cells];
    return html`<tr${rowCls ? html` class="${rowCls}"` : ''}>${cells.map((c, i) => {
      const col = columns[i]!;
      return html`<td${col.cls ? html` class="${col.cls}"` : ''}${col.hideLabel ? '' : html` data-label="${col.label}"`}>${c === null || c === undefined ? '' : c}</td>`;
    })}</tr>`;
  });
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table class="stack ${cls}"><caption class="sr-only">${caption}</caption>
<thead><tr>${columns.map((c) => html`<th scope="col">${c.hideLabel ? html`<span class="sr-only">${c.label}</span>` : c.label}</th>`)}</tr></thead>
<tbody>${body}</tbody></table></div>`;
}

/** Cursor pagination: back to the first page (when not on it) and on to the next (when there is one). */
export const pager = (v: View, label: string, first: string | null, next: string | null) =>
  html`<nav class="pager" aria-label="${label}">${first ? html`<a href="${first}">${v.t.firstPage}</a>` : ''}${next ? html`<a href="${next}" rel="next">${v.t.nextPage} →</a>` : ''}</nav>`;

export const statusBadge = (t: Texts, status: string) =>
  html`<span class="badge badge-${status.toLowerCase()}">${named(t, 'st_', status)}</span>`;

/**
 * The payment's state as the merchant should read it. A payment declined at checkout is still
 * Created in the API (the customer may pay again), but "Created" hides that a customer tried and
 * was refused: it reads "Declined, can retry" with its attempts so far.
 */
export function paymentState(t: Texts, row: Pick<PaymentRow, 'status' | 'attempts' | 'result_code'>): Html {
  if (row.status === 'Created' && row.attempts > 0 && row.result_code) {
    return html`<span class="badge badge-declined" title="${named(t, 'st_', row.status)}">${t.declinedCanRetry}</span> <span class="attempts">${fill(t.attemptsSoFar, { n: row.attempts })}</span>`;
  }
  return statusBadge(t, row.status);
}

/** A request path that wraps at its separators (before `/`, `?`, `&`), not inside a word. */
export const breakablePath = (path: string) =>
  path.split(/(?=[/?&])/).map((part, i) => (i ? html`<wbr>${part}` : part));

function brand(m: Merchant): Html {
  const initial = [...m.name.trim()][0]?.toUpperCase() ?? '';
  const mark = m.logoUrl
    ? html`<img class="logo" src="${m.logoUrl}" alt="">`
    : html`<span class="initial" aria-hidden="true">${initial}</span>`;
  return html`<a class="brand" href="/dashboard/payments">${mark}<span class="shop">${m.name}</span></a>`;
}

/** A whole page. `section` marks the navigation entry of the page. */
export function page(v: View, title: string, main: Html, section?: Section): string {
  const t = v.t;
  const a = v.account;
  const lang = languageSwitch(v.languages);
  const header = a
    ? html`<div class="bar">${brand(a.merchant)}${v.sandbox ? html`<span class="env">${t.sandbox}</span>` : ''}
<div class="account"><span class="who"><span class="sr-only">${t.signedInAs} </span>${a.email}</span>${lang}<form method="post" action="/dashboard/sign-out">${csrfField(v)}<button type="submit" class="link">${t.signOut}</button></form></div></div>
<nav class="sections" aria-label="${t.mainNav}"><ul>${SECTIONS.map(
        ([id, label]) =>
          html`<li><a href="/dashboard/${id}"${id === section ? html` aria-current="page"` : ''}>${t[label]}</a></li>`,
      )}</ul></nav>`
    : html`<div class="bar"><span class="brand"><span class="initial" aria-hidden="true">K</span><span class="shop">Karibche</span></span>${v.sandbox ? html`<span class="env">${t.sandbox}</span>` : ''}<div class="account">${lang}</div></div>`;
  return html`<!doctype html>
<html lang="${t.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} — ${a ? a.merchant.name : t.dashboard}</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head><body${a ? '' : html` class="signed-out"`}>
<a class="skip" href="#main">${t.skip}</a>
<header class="top">${header}</header>
<main id="main" class="page" tabindex="-1">
${main}
</main>
<footer class="foot"><p>Karibche · ${t.dashboard}</p></footer>
</body></html>`.value;
}

/** A page that only says something: an error, a notice with a way back. */
export function messagePage(v: View, title: string, body: Html, back?: string): string {
  return page(v, title, html`<h1>${title}</h1>${body}${back ? html`<p><a href="${back}">${v.t.back}</a></p>` : ''}`);
}
