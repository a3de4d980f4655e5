// API reference served by the gateway itself: /openapi.json (generated from the route schemas),
// /docs (a readable page rendered from it, no external assets) and /docs/errors (the catalogue).
import type { FastifyInstance } from 'fastify';
import { catalogue, type Operation } from '../errors/catalogue.ts';

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d2330}
code,pre{font:13px ui-monospace,monospace;background:#f3f4f7;border-radius:4px;padding:.1em .3em}
pre{padding:.7em;overflow:auto}h2{border-bottom:1px solid #dde;margin-top:2.5rem}table{border-collapse:collapse;width:100%}
td,th{border:1px solid #dde;padding:.3em .5em;text-align:left;vertical-align:top}.m{font-weight:700;color:#0a58ca}
:target{background:#fff6d5}nav a{margin-right:1em}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body><nav><a href="/docs">API reference</a><a href="/docs/errors">Errors</a><a href="/openapi.json">openapi.json</a></nav>${body}</body></html>`;
}

interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; description?: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export function errorsPage(): string {
  const rows = catalogue();
  const ops = [...new Set(rows.map((r) => r.op))] as Operation[];
  const sections = ops
    .map((op) => {
      const trs = rows
        .filter((r) => r.op === op)
        .map((r) => `<tr id="${esc(r.code)}"><td><code>${esc(r.code)}</code></td><td>${r.def.status}</td><td>${esc(r.def.title)}</td><td>${esc(r.def.resultCode ?? '')}</td><td>${esc(r.def.meaning)}</td></tr>`)
        .join('');
      return `<h2 id="op-${esc(op)}">${esc(op)}</h2><table><tr><th>systemCode</th><th>HTTP</th><th>title</th><th>resultCode</th><th>meaning</th></tr>${trs}</table>`;
    })
    .join('');
  return page(
    'Karibche errors',
    `<h1>Errors</h1><p>Every error is problem JSON (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>, <code>status</code> (a string), <code>systemCode</code> = <code>{operation}.{status}.{nnn}</code>, <code>detail</code>, and on 400 <code>resultCode</code>; validation errors list every invalid field in <code>invalidParams</code>.</p>${sections}`,
  );
}

export function referencePage(spec: { info?: { title?: string; description?: string }; paths?: Record<string, Record<string, OpenApiOperation>> }): string {
  const blocks: string[] = [];
  for (const [path, methods] of Object.entries(spec.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? [])
        .map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : ''}</td><td>${esc(p.description ?? '')}</td></tr>`)
        .join('');
      const body = op.requestBody?.content ? Object.values(op.requestBody.content)[0]?.schema : undefined;
      const ok = Object.entries(op.responses ?? {}).find(([code]) => code.startsWith('2'));
      const okSchema = ok?.[1].content ? Object.values(ok[1].content)[0]?.schema : undefined;
      blocks.push(`<h2 id="${esc(method + path)}"><span class="m">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h2>
<p><b>${esc(op.summary ?? '')}</b> ${esc(op.description ?? '')}</p>
${params ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>description</th></tr>${params}</table>` : ''}
${body ? `<h3>Request body</h3><pre>${esc(JSON.stringify(body, null, 2))}</pre>` : ''}
${okSchema ? `<h3>Response ${esc(ok![0])}</h3><pre>${esc(JSON.stringify(okSchema, null, 2))}</pre>` : ''}`);
    }
  }
  return page(spec.info?.title ?? 'API', `<h1>${esc(spec.info?.title ?? 'API')}</h1><p>${esc(spec.info?.description ?? '')}</p>${blocks.join('\n')}`);
}

export function docsRoutes(app: FastifyInstance): void {
  let reference: string | null = null;
  const errors = errorsPage();
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/docs', { schema: { hide: true } }, async (_req, reply) => {
    reference ??= referencePage(app.swagger() as Parameters<typeof referencePage>[0]);
    return reply.type('text/html; charset=utf-8').send(reference);
  });
  app.get('/docs/errors', { schema: { hide: true } }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(errors));
}
