// /docs/errors: every error of the catalogue, one table per operation, each row anchored by its
// systemCode (a problem's `type` is /docs/errors#<systemCode>).
import { escape } from '../html/html.ts';
import { catalogue, type Operation } from '../errors/catalogue.ts';

export function errorsBody(): { html: string; toc: { id: string; text: string }[] } {
  const rows = catalogue();
  const ops = [...new Set(rows.map((r) => r.op))] as Operation[];
  const sections = ops
    .map((op) => {
      const trs = rows
        .filter((r) => r.op === op)
        .map(
          (r) =>
            `<tr id="${escape(r.code)}"><td><code>${escape(r.code)}</code></td><td>${r.def.status}</td><td>${escape(r.def.title)}</td><td>${r.def.resultCode ? `<code>${escape(r.def.resultCode)}</code>` : ''}</td><td>${escape(r.def.meaning)}</td></tr>`,
        )
        .join('');
      return `<h2 id="op-${escape(op)}">${escape(op)}</h2><div class="table" tabindex="0"><table><thead><tr><th>systemCode</th><th>HTTP</th><th>title</th><th>resultCode</th><th>meaning</th></tr></thead><tbody>${trs}</tbody></table></div>`;
    })
    .join('');
  const html = `<h1>Error codes</h1>
<p>Every error is problem JSON (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>, <code>status</code> (a string), <code>systemCode</code> = <code>{operation}.{status}.{nnn}</code>, <code>detail</code>, and on 400 <code>resultCode</code>; validation errors list every invalid field in <code>invalidParams</code>. How to handle them: <a href="/docs/guides/errors">the errors guide</a>; the same list as Markdown: <a href="/docs/ERRORS.md">ERRORS.md</a>.</p>${sections}`;
  return { html, toc: ops.map((op) => ({ id: `op-${op}`, text: op })) };
}
