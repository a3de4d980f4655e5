// Form fields as the checkout and the dashboard render them: label, control, hint and error tied
// together for assistive technology (aria-describedby, aria-invalid), focus on the first invalid
// field without a script (autofocus).
import { html, type Html } from './html.ts';

interface Described {
  hint?: string;
  error?: string;
  /** The error's language when it is not the page's (the API's own words on a Georgian page). */
  errorLang?: string;
}

export interface FieldOptions extends Described {
  type?: string;
  autocomplete: string;
  inputmode?: string;
  value?: string;
  /** The first invalid field after a failed submit: focused on load, without JavaScript. */
  autofocus?: boolean;
  maxlength?: number;
  /** More attributes (trusted markup). */
  attrs?: Html;
  /** Inside the control, after the input (the scheme marks). */
  after?: Html;
  /** Default true. */
  required?: boolean;
}

/** The control's aria attributes pointing at its hint and error. */
function aria(name: string, o: Described): Html {
  const described = [o.error ? `${name}-error` : '', o.hint ? `${name}-hint` : ''].filter(Boolean).join(' ');
  return html`${described ? html` aria-describedby="${described}"` : ''}${o.error ? html` aria-invalid="true"` : ''}`;
}

/** Label, control, hint and error. */
const wrap = (name: string, label: string, control: Html, o: Described) =>
  html`<div class="field${o.error ? ' invalid' : ''}"><label for="${name}">${label}</label>
<div class="control">${control}</div>
${o.hint ? html`<p class="hint" id="${name}-hint">${o.hint}</p>` : ''}${o.error ? html`<p class="err" id="${name}-error"${o.errorLang ? html` lang="${o.errorLang}"` : ''}>${o.error}</p>` : ''}</div>`;

/** A labelled input with its hint and error. */
export function field(name: string, label: string, o: FieldOptions): Html {
  const input = html`<input id="${name}" name="${name}" type="${o.type ?? 'text'}" autocomplete="${o.autocomplete}"${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${o.required === false ? '' : html` required`}${o.value ? html` value="${shownValue(o.value)}"` : ''}${aria(name, o)}${o.autofocus ? html` autofocus` : ''}${o.attrs ?? ''}>${o.after ?? ''}`;
  return wrap(name, label, input, o);
}

export interface Choice {
  value: string;
  label: string;
}

/** A labelled select; `value` picks the selected choice. */
export function selectField(
  name: string,
  label: string,
  choices: readonly Choice[],
  value: string | undefined,
  o: Described = {},
): Html {
  const options = choices.map(
    (c) => html`<option value="${c.value}"${c.value === (value ?? '') ? html` selected` : ''}>${c.label}</option>`,
  );
  return wrap(name, label, html`<select id="${name}" name="${name}"${aria(name, o)}>${options}</select>`, o);
}

/** What a field shows back of what was typed: no control character (a page never echoes one). */
export const shownValue = (typed: string) => typed.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
