// The Markdown form of the error catalogue (docs/ERRORS.md).
import { catalogue, type Operation } from './catalogue.ts';

export function errorsMarkdown(): string {
  const rows = catalogue();
  const ops = [...new Set(rows.map((r) => r.op))] as Operation[];
  const out = [
    '# Karibche error catalogue',
    '',
    'Generated from `src/errors/catalogue.ts` by `npm run docs:errors`; the gateway serves the same list at `/docs/errors`.',
    '',
    'Every error is problem JSON (`Content-Type: application/problem+json`):',
    '',
    '```json',
    '{',
    '  "type": "http://127.0.0.1:8080/docs/errors#create-payment.400.021",',
    '  "title": "Invalid split amount",',
    '  "status": "400",',
    '  "systemCode": "create-payment.400.021",',
    '  "detail": "extra2 must be at most 99% of the total amount",',
    '  "resultCode": "invalid_request",',
    '  "invalidParams": [{ "name": "extra2", "reason": "must be at most 99% of the total amount", "systemCode": "create-payment.400.021" }],',
    '  "requestId": "4b1c…"',
    '}',
    '```',
    '',
    '- `systemCode` is `{operation}.{HTTP status}.{nnn}` and never changes meaning.',
    '- `status` is the HTTP status as a string (as the original interface has it).',
    '- `resultCode` is on every 400: `invalid_request` for request validation, a decline code for business rejections.',
    "- `invalidParams` lists every invalid field at once; an entry carries its own `systemCode` when a named rule failed. When all failures are the same rule, the problem carries that rule's code, otherwise the generic `…400.001`.",
    '- 401 for a bad token adds `WWW-Authenticate: Bearer error="invalid_token"`; 429 and 503 add `Retry-After`.',
    '',
  ];
  for (const op of ops) {
    out.push(`## ${op}`, '', '| systemCode | HTTP | title | resultCode | meaning |', '|---|---|---|---|---|');
    for (const r of rows.filter((x) => x.op === op)) {
      out.push(
        `| \`${r.code}\` | ${r.def.status} | ${r.def.title} | ${r.def.resultCode ?? ''} | ${r.def.meaning.replace(/\|/g, '\\|')} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
