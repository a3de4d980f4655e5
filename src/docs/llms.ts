// /llms.txt (llmstxt.org): a Markdown index of the documentation for language models and the tools
// around them. Every link goes to a plain Markdown twin (/docs/<page>.md, /docs/api.md), which reads
// better in a model's context than the HTML pages.
import type { DocPage } from './files.ts';

const entry = (base: string, p: DocPage) =>
  `- [${p.title}](${base}/docs/${p.slug}.md)${p.summary ? `: ${p.summary}` : ''}`;

export function llmsTxt(base: string, pages: DocPage[]): string {
  const guides = pages.filter((p) => p.guide);
  const others = pages.filter((p) => !p.guide);
  return [
    '# Karibche',
    '',
    '> Karibche is a self-hostable e-commerce payment gateway: the payment API of a Georgian bank (tpay), a hosted checkout page, signed callbacks, refunds, pre-authorisation, saved cards and split payments. It runs as a stateful sandbox on embedded PostgreSQL (PGlite) or as a multi-process service on PostgreSQL.',
    '',
    'Merchant calls go to /v1/gateway with the `apikey` header and `Authorization: Bearer <token>` from POST /v1/gateway/access-token. Amounts are decimals with at most two places. Errors are problem JSON with a stable `systemCode`. Every link below is a Markdown file.',
    '',
    '## Guides',
    '',
    ...guides.map((p) => entry(base, p)),
    '',
    '## API reference',
    '',
    `- [API reference](${base}/docs/api.md): every endpoint with its fields, credentials, example requests in curl, PHP and Node, and example responses`,
    `- [OpenAPI document](${base}/openapi.json): OpenAPI 3.1, generated from the route schemas`,
    `- [Postman collection](${base}/docs/postman.json): Postman collection format v2.1, one request per operation`,
    '',
    '## Optional',
    '',
    ...others.map((p) => entry(base, p)),
    '',
  ].join('\n');
}
