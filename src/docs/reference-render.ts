// The API reference model (reference.ts) as the /docs/api page and as its Markdown twin /docs/api.md.
import { Marked } from 'marked';
import { escape } from '../html/html.ts';
import {
  CREDENTIAL_HEADERS,
  VARIABLES,
  type Field,
  type ReferenceGroup,
  type ReferenceOperation,
} from './reference.ts';

const inline = new Marked({ gfm: true });
const md = (text: string) => inline.parseInline(text, { async: false });
// A code block that scrolls must be reachable from the keyboard (tabindex).
const code = (text: string, lang: string) =>
  `<pre tabindex="0"><code class="language-${lang}">${escape(text)}</code></pre>`;
const json = (v: unknown) => JSON.stringify(v, null, 2);

const INTRO = `Every endpoint of the gateway, generated from the same schemas that validate the requests.
Merchant calls (\`/v1/gateway\`) carry the merchant's \`apikey\` header and an access token; operator
(\`/admin/v1\`) and sandbox (\`/sandbox/v1\`) calls carry the admin token. Amounts are decimal numbers (or
decimal strings) with at most two decimals. Every error is problem JSON with a \`systemCode\`. Every
\`POST\` takes an optional \`Idempotency-Key\`: the same key and body within 24 hours replays the first answer.`;

function fieldRows(fields: Field[]): string {
  return fields
    .map(
      (f) =>
        `<tr><td><code>${escape(f.name)}</code></td><td>${f.in}</td><td><code>${escape(f.type)}</code></td><td>${f.required ? '<strong>required</strong>' : 'optional'}</td><td>${md(f.description)}</td></tr>`,
    )
    .join('');
}

function operationHtml(op: ReferenceOperation): string {
  const credentials = op.credentials.length
    ? `<p class="auth"><strong>Required headers:</strong> ${op.credentials.map((c) => `<code>${escape(CREDENTIAL_HEADERS[c])}</code>`).join(', ')}</p>`
    : '<p class="auth">No credentials.</p>';
  const fields = op.fields.length
    ? `<div class="table" tabindex="0"><table><thead><tr><th>name</th><th>in</th><th>type</th><th>required</th><th>description</th></tr></thead><tbody>${fieldRows(op.fields)}</tbody></table></div>`
    : '';
  const response = op.response
    ? `<h4>Response ${escape(op.response.status)}</h4>${op.response.example === undefined ? '<p>No body.</p>' : code(json(op.response.example), 'json')}`
    : '';
  const errors = op.errors
    ? `<details class="errors"><summary>Errors (${op.errors.codes.length})</summary><p>Problem JSON; the meaning of each: <a href="/docs/errors#op-${escape(op.errors.operation)}">${escape(op.errors.operation)} errors</a>.</p><ul>${op.errors.codes
        .map(
          (c) =>
            `<li><a href="/docs/errors#${escape(c.code)}"><code>${escape(c.code)}</code></a> ${escape(c.title)}</li>`,
        )
        .join('')}</ul></details>`
    : '';
  return `<section class="op" id="${op.id}" aria-labelledby="${op.id}-h">
<h3 id="${op.id}-h"><span class="method method-${op.method.toLowerCase()}">${op.method}</span> <code>${escape(op.path)}</code></h3>
<p class="summary">${escape(op.summary)}</p>${op.description ? `<p>${md(op.description)}</p>` : ''}
${credentials}${fields}
<h4>Example request</h4>
<details open><summary>curl</summary>${code(op.snippets.curl, 'sh')}</details>
<details><summary>PHP</summary>${code(op.snippets.php, 'php')}</details>
<details><summary>Node</summary>${code(op.snippets.node, 'js')}</details>
${response}${errors}</section>`;
}

export function referenceHtml(title: string, groups: ReferenceGroup[]): string {
  const toc = groups
    .map(
      (g) =>
        `<li><a href="#${g.id}">${escape(g.tag)}</a><ul>${g.operations.map((o) => `<li><a href="#${o.id}"><span class="method method-${o.method.toLowerCase()}">${o.method}</span> ${escape(o.summary)}</a></li>`).join('')}</ul></li>`,
    )
    .join('');
  const vars = VARIABLES.map(
    ([name, meaning]) => `<tr><td><code>${escape(name)}</code></td><td>${escape(meaning)}</td></tr>`,
  ).join('');
  return `<h1>${escape(title)}</h1>
<p>${md(INTRO.replace(/\n/g, ' '))}</p>
<p>The examples read these variables (curl / PHP / Node):</p>
<div class="table" tabindex="0"><table><tbody>${vars}</tbody></table></div>
<nav class="api-toc" aria-label="Operations"><h2>Operations</h2><ul>${toc}</ul></nav>
${groups.map((g) => `<h2 id="${g.id}">${escape(g.tag)}</h2>${g.operations.map(operationHtml).join('\n')}`).join('\n')}`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function referenceMarkdown(title: string, groups: ReferenceGroup[]): string {
  const out = [
    `# ${title}`,
    '',
    INTRO,
    '',
    'The examples read these variables (curl / PHP / Node):',
    '',
    '| variable | meaning |',
    '|---|---|',
  ];
  for (const [name, meaning] of VARIABLES) out.push(`| \`${name}\` | ${meaning} |`);
  for (const g of groups) {
    out.push('', `## ${g.tag}`);
    for (const op of g.operations) {
      out.push('', `### ${op.method} ${op.path}`, '', op.summary + (op.description ? `. ${op.description}` : ''), '');
      out.push(
        op.credentials.length
          ? `Required headers: ${op.credentials.map((c) => `\`${CREDENTIAL_HEADERS[c]}\``).join(', ')}.`
          : 'No credentials.',
      );
      if (op.fields.length) {
        out.push('', '| name | in | type | required | description |', '|---|---|---|---|---|');
        for (const f of op.fields)
          out.push(
            `| \`${f.name}\` | ${f.in} | \`${cell(f.type)}\` | ${f.required ? 'required' : 'optional'} | ${cell(f.description)} |`,
          );
      }
      out.push(
        '',
        'curl:',
        '',
        '```sh',
        op.snippets.curl,
        '```',
        '',
        'PHP:',
        '',
        '```php',
        op.snippets.php,
        '```',
        '',
        'Node:',
        '',
        '```js',
        op.snippets.node,
        '```',
      );
      if (op.response)
        out.push(
          '',
          `Response ${op.response.status}:`,
          '',
          ...(op.response.example === undefined ? ['No body.'] : ['```json', json(op.response.example), '```']),
        );
      if (op.errors) out.push('', `Errors: ${op.errors.codes.map((c) => `\`${c.code}\` ${c.title}`).join('; ')}.`);
    }
  }
  return `${out.join('\n')}\n`;
}
