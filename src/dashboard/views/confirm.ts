// The confirmation step of an action that cannot be taken back (a secret rotation, a key's
// revocation): what will happen, and one button that does it. Works without a script.
import { html } from '../../html/html.ts';
import { csrfField, page, type Section, type View } from './layout.ts';

export interface ConfirmStep {
  title: string;
  lead: string;
  /** Where the confirmed form goes. */
  action: string;
  button: string;
  hidden?: Record<string, string>;
  back: string;
  section: Section;
}

export function confirmStepPage(v: View, c: ConfirmStep): string {
  const t = v.t;
  const body = html`<h1>${c.title}</h1>
<div class="confirm"><p class="question">${c.lead}</p><p class="warn">${t.cannotUndo}</p></div>
<form method="post" action="${c.action}" class="stack narrow" data-busy>${csrfField(v)}<input type="hidden" name="confirm" value="yes">${Object.entries(
    c.hidden ?? {},
  ).map(([k, value]) => html`<input type="hidden" name="${k}" value="${value}">`)}
<div class="actions"><button type="submit" class="danger">${c.button}</button><a class="button secondary" href="${c.back}">${t.cancel}</a></div></form>`;
  return page(v, c.title, body, c.section);
}
