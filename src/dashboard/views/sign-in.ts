// The sign-in page: email, password, and what happened last (a wrong password, a lockout, the end
// of a session, a sign-out).
import { field } from '../../html/fields.ts';
import { html, type Html } from '../../html/html.ts';
import { page, type View } from './layout.ts';

export interface SignInState {
  /** The form's CSRF token (bound to this browser's pre-sign-in cookie). */
  csrf: string;
  email?: string;
  next?: string;
  /** A notice above the form: an error (announced at once) or information. */
  message?: { kind: 'bad' | 'info'; text: string };
}

export function signInPage(v: View, st: SignInState): string {
  const t = v.t;
  const failed = st.message?.kind === 'bad';
  const message: Html = st.message
    ? html`<div class="notice notice-${st.message.kind}" role="${failed ? 'alert' : 'status'}" id="sign-in-message">${st.message.text}</div>`
    : html``;
  const body = html`<section class="sign-in">
<h1>${t.signInTitle}</h1>
<p class="lead">${t.signInLead}</p>
${message}
<form method="post" action="/dashboard/sign-in" class="stack" data-busy>
<input type="hidden" name="csrf" value="${st.csrf}">${st.next ? html`<input type="hidden" name="next" value="${st.next}">` : ''}
${field('email', t.email, { type: 'email', autocomplete: 'username', value: st.email, maxlength: 254, autofocus: !st.email, attrs: html` spellcheck="false" autocapitalize="off"` })}
${field('password', t.password, { type: 'password', autocomplete: 'current-password', maxlength: 200, autofocus: !!st.email, attrs: failed ? html` aria-describedby="sign-in-message"` : html`` })}
<button type="submit" class="primary">${t.signIn}</button>
</form>
${v.sandbox ? html`<p class="hint sandbox-hint">${t.sandboxUser}</p>` : ''}
</section>`;
  return page(v, t.signInTitle, body);
}
