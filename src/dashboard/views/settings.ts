// The settings page: what the merchant may change of how its shop looks on the checkout (name,
// logo, brand colour), and what the operator decides, shown read-only.
import type { Merchant } from '../../merchants/merchant.ts';
import { field, shownValue } from '../../html/fields.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField, fieldErrors, page, pairs, problemBox, type Problem, type View } from './layout.ts';
import { methodLabel } from '../../payments/methods/index.ts';

export interface SettingsState {
  merchant: Merchant;
  typed?: { name?: string; logoUrl?: string; brandColor?: string };
  notice?: Html;
  problem?: Problem;
}

export function settingsPage(v: View, st: SettingsState): string {
  const t = v.t;
  const m = st.merchant;
  const typed = st.typed ?? { name: m.name, logoUrl: m.logoUrl ?? '', brandColor: m.brandColor ?? '' };
  const yes = (b: boolean) => (b ? t.yes : t.no);
  const err = fieldErrors(st.problem);
  const body = html`<h1>${t.settingsTitle}</h1>
${st.notice ?? ''}${st.problem ? problemBox(v, t.problemTitle, st.problem) : ''}
<section aria-labelledby="look-h"><h2 id="look-h">${t.lookTitle}</h2><p class="hint">${t.settingsLead}</p>
<form method="post" action="/dashboard/settings" class="stack narrow" data-busy>${csrfField(v)}
${field('name', t.shopName, { autocomplete: 'organization', value: typed.name, maxlength: 100, error: err.name, errorLang: 'en', autofocus: !!err.name })}
<div class="field${err.logoUrl ? ' invalid' : ''}"><label for="logoUrl">${t.logoUrl}</label>
<div class="control"><textarea id="logoUrl" name="logoUrl" rows="3" spellcheck="false" aria-describedby="logoUrl-hint${err.logoUrl ? ' logoUrl-error' : ''}"${err.logoUrl ? html` aria-invalid="true"` : ''}>${shownValue(typed.logoUrl ?? '')}</textarea></div>
<p class="hint" id="logoUrl-hint">${t.logoHint}</p>${err.logoUrl ? html`<p class="err" id="logoUrl-error" lang="en">${err.logoUrl}</p>` : ''}
<div class="logo-file" hidden><label for="logoFile">${t.logoFile}</label> <input type="file" id="logoFile" accept="image/png,image/svg+xml,image/jpeg,image/gif,image/webp" data-into="logoUrl"></div>
${m.logoUrl ? html`<p class="logo-preview"><img src="${m.logoUrl}" alt="${m.name}"></p>` : ''}</div>
${field('brandColor', t.brandColor, { autocomplete: 'off', value: typed.brandColor, required: false, maxlength: 7, hint: t.brandHint, error: err.brandColor, errorLang: 'en', autofocus: !err.name && !err.logoUrl && !!err.brandColor, attrs: html` spellcheck="false" placeholder="#0b57d0"` })}
<div class="actions"><button type="submit" class="primary">${t.save}</button></div>
</form></section>
<section aria-labelledby="operator-h"><h2 id="operator-h">${t.operatorSet}</h2><p class="hint">${t.operatorSetLead}</p>
${pairs([
  [t.accountStatus, m.status === 'active' ? t.active : t.suspendedStatus],
  [t.currencies, m.currencies.join(', ')],
  [t.methods, m.methods.map((x) => methodLabel(x, t.lang)).join(', ')],
  [t.splitEnrolled, yes(m.splitEnrolled)],
  [t.saveCards, yes(m.saveCardEnabled)],
  [t.testMode, yes(m.testMode)],
])}</section>`;
  return page(v, t.settingsTitle, body, 'settings');
}
