// The internet bank's login form (7); the sandbox lists its test users.
import { BANK_USERS } from '../../acquirer/simulation/bank-users.ts';
import { DELAYED_OUTCOME_MINUTES } from '../../acquirer/simulation/test-cards.ts';
import { POLICY } from '../../payments/rules/policy.ts';
import { field } from '../../html/fields.ts';
import { fill, html, type Html } from '../../html/html.ts';
import { resultText } from '../i18n.ts';
import { base, hiddenFields, notice, sandboxBox, type PageContext } from '../layout.ts';
import { icon } from '../marks.ts';
import type { CheckoutMethod, PanelState } from './method.ts';

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

export const bankLoginCheckout: CheckoutMethod = {
  code: 7,
  order: 30,
  icon: () => icon('bank'),
  // A compound (internet + bank): at 320 px it breaks there, hyphenated, never mid-syllable.
  tile: { ka: 'ინტერნეტ\u00adბანკი' },
  panel: bankPanel,
  readForm: (form) => ({ choice: { login: { username: form.username ?? '', password: form.password ?? '' } } }),
};
