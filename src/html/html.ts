// A tagged template that escapes every interpolated value unless it is already markup, so a
// merchant's name or description can never inject HTML into the checkout or dashboard pages.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = Html | string | number | null | undefined | false | Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  if (v instanceof Html) return v.value;
  return escape(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Markup produced by a trusted generator (the QR code library's SVG). */
export const trusted = (markup: string) => new Html(markup);

/** A text with {name} placeholders, escaped, with each placeholder replaced by a value (markup or text). */
export function fillHtml(text: string, values: Record<string, Value>): Html {
  const parts = text.split(/\{(\w+)\}/); // odd indexes are placeholder names
  return new Html(
    parts.map((p, i) => (i % 2 ? (p in values ? render(values[p]!) : escape(`{${p}}`)) : escape(p))).join(''),
  );
}

/** A plain text with its {name} placeholders filled (unknown ones are left as they are). */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
