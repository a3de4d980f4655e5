// The callbacks page: the default callback URL, the registered addresses (add, remove), the
// failed and undeliverable callbacks across payments with bulk redelivery, a test callback, and the
// rotation of the signing secret.
import { callbackId } from '../../callbacks/ids.ts';
import type { FailedDelivery } from '../../callbacks/failed-delivery-store.ts';
import type { Merchant } from '../../merchants/merchant.ts';
import { field, selectField } from '../../html/fields.ts';
import { fill, html, type Html } from '../../html/html.ts';
import { named } from '../i18n.ts';
import {
  code,
  csrfField,
  page,
  pager,
  problemBox,
  statusBadge,
  table,
  whenShort,
  type Problem,
  type View,
} from './layout.ts';

export interface CallbacksState {
  merchant: Merchant;
  problems: FailedDelivery[];
  nextCursor: string | null;
  /** The state filter of the list ('' for both). */
  state: string;
  paged: boolean;
  notice?: Html;
  /** A refusal, with the heading of what was refused. */
  problem?: { heading: string; problem: Problem };
  /** What the forms were sent with, when a refusal shows them again. */
  typed?: { url?: string; address?: string; testUrl?: string };
  /** A new signing secret, shown this once. */
  newSecret?: string;
}

/** The registered addresses (add, remove) and the default callback URL under them. */
function destinations(v: View, st: CallbacksState): Html {
  const t = v.t;
  const list = st.merchant.callbackUrlPrefixes.length
    ? html`<ul class="addresses">${st.merchant.callbackUrlPrefixes.map(
        (a) =>
          html`<li><code>${a}</code><form method="post" action="/dashboard/callbacks/addresses/remove" data-busy>${csrfField(v)}<input type="hidden" name="address" value="${a}"><button type="submit" class="link danger-text" aria-label="${fill(t.removeAddress, { address: a })}">${t.remove}</button></form></li>`,
      )}</ul>`
    : html`<p class="empty">${t.noAddresses}</p>`;
  return html`<section aria-labelledby="where-h"><h2 id="where-h">${t.whereTitle}</h2>
<h3>${t.addresses}</h3>
<p class="hint">${t.addressesLead}</p>
${list}
<form method="post" action="/dashboard/callbacks/addresses" class="row-form" data-busy>${csrfField(v)}
${field('address', t.newAddress, { autocomplete: 'off', value: st.typed?.address, maxlength: 2048, attrs: html` spellcheck="false" placeholder="https://shop.example/callbacks"` })}
<button type="submit">${t.addAddress}</button></form>
<form method="post" action="/dashboard/callbacks/default-url" class="row-form separated" data-busy>${csrfField(v)}
${field('url', t.defaultUrl, { type: 'url', autocomplete: 'url', value: st.typed?.url ?? st.merchant.defaultCallbackUrl ?? '', required: false, maxlength: 2048, hint: t.defaultUrlHint, attrs: html` spellcheck="false"` })}
<button type="submit">${t.save}</button></form></section>`;
}

function problems(v: View, st: CallbacksState): Html {
  const t = v.t;
  const filter = html`<form method="get" action="/dashboard/callbacks" class="row-form compact">
${selectField(
  'state',
  t.state,
  [
    { value: '', label: t.anyState },
    { value: 'failed', label: t.dl_failed },
    { value: 'undeliverable', label: t.dl_undeliverable },
  ],
  st.state,
)}
<button type="submit">${t.show}</button></form>`;
  if (!st.problems.length) {
    return html`<section aria-labelledby="problems-h"><h2 id="problems-h">${t.problemsTitle}</h2><p class="hint">${t.problemsLead}</p>${filter}<p class="empty">${t.noProblems}</p></section>`;
  }
  const rows = st.problems.map((d) => {
    const id = callbackId(d.event_id);
    const last = d.last_status !== null ? `HTTP ${d.last_status}` : (d.last_error ?? '');
    return [
      html`<input type="checkbox" name="callbackIds" value="${id}" id="cb-${id}" aria-label="${fill(t.selectCallback, { id })}">`,
      code(id),
      html`<a class="id" href="/dashboard/payments/${d.pay_id}">${d.pay_id}</a>`,
      statusBadge(t, d.event_status),
      named(t, 'dl_', d.status),
      code(d.url),
      d.attempts,
      code(last),
      whenShort(v, d.created_at),
    ];
  });
  const states = st.state ? [st.state] : ['failed', 'undeliverable'];
  const next = st.nextCursor
    ? `/dashboard/callbacks?${new URLSearchParams({ ...(st.state ? { state: st.state } : {}), cursor: st.nextCursor }).toString()}`
    : null;
  return html`<section aria-labelledby="problems-h"><h2 id="problems-h">${t.problemsTitle}</h2><p class="hint">${t.problemsLead}</p>${filter}
<form method="post" action="/dashboard/callbacks/redeliver" data-busy>${csrfField(v)}
${table(
  t.problemsCaption,
  [
    { label: t.select, cls: 'check', hideLabel: true },
    { label: t.callbackId },
    { label: t.payment },
    { label: t.status },
    { label: t.deliveryStatus },
    { label: t.url },
    { label: t.attempts, cls: 'num' },
    { label: t.lastResult },
    { label: t.created, cls: 'nowrap' },
  ],
  rows,
  'problems',
)}
<div class="actions"><button type="submit" class="primary">${t.redeliverSelected}</button>${states.map(
    (state) =>
      html`<button type="submit" name="state" value="${state}">${state === 'failed' ? t.redeliverAllFailed : t.redeliverAllUndeliverable}</button>`,
  )}</div></form>
${pager(v, t.problemsCaption, st.paged ? `/dashboard/callbacks${st.state ? `?state=${st.state}` : ''}` : null, next)}</section>`;
}

function testForm(v: View, st: CallbacksState): Html {
  const t = v.t;
  return html`<section aria-labelledby="test-h"><h2 id="test-h">${t.testTitle}</h2><p class="hint">${t.testLead}</p>
<form method="post" action="/dashboard/callbacks/test" class="row-form" data-busy>${csrfField(v)}
${field('testUrl', t.testUrl, { type: 'url', autocomplete: 'url', value: st.typed?.testUrl, required: false, maxlength: 2048, attrs: html` spellcheck="false"` })}
<button type="submit">${t.sendTest}</button></form></section>`;
}

function signingSecret(v: View, st: CallbacksState): Html {
  const t = v.t;
  return html`<section aria-labelledby="secret-h"><h2 id="secret-h">${t.secretTitle}</h2><p class="hint">${t.secretLead}</p>
${st.newSecret ? html`<div class="notice notice-ok secret" role="status"><p>${t.newSigningSecret}</p><p><code class="once">${st.newSecret}</code></p></div>` : ''}
<form method="post" action="/dashboard/callbacks/signing-secret" data-busy>${csrfField(v)}<button type="submit">${t.rotateSigningSecret}</button></form></section>`;
}

export function callbacksPage(v: View, st: CallbacksState): string {
  const t = v.t;
  const body = html`<h1>${t.callbacksPageTitle}</h1>
${st.notice ?? ''}${st.problem ? problemBox(v, st.problem.heading, st.problem.problem) : ''}
${destinations(v, st)}
${problems(v, st)}
${testForm(v, st)}
${signingSecret(v, st)}`;
  return page(v, t.callbacksPageTitle, body, 'callbacks');
}
