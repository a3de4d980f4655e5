// The card form (5): number, expiry, security code, holder; the sandbox's test cards below it.
import type { CardField } from '../../payments/card.ts';
import { POLICY } from '../../payments/rules/policy.ts';
import { field } from '../../html/fields.ts';
import { html, type Html } from '../../html/html.ts';
import { base, hiddenFields, money, notice, sandboxBox, type PageContext } from '../layout.ts';
import { fieldMarks, icon } from '../marks.ts';
import type { CheckoutMethod, PanelState } from './method.ts';

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

export const cardCheckout: CheckoutMethod = {
  code: 5,
  order: 10,
  icon: () => icon('card'),
  panel: cardPanel,
  readForm: (form) => ({
    choice: {
      card: { number: form.number, expiry: form.expiry, securityCode: form.securityCode, holder: form.holder },
    },
  }),
};
