// Example requests in curl, PHP and Node for the API reference. They read their credentials from
// variables the reference explains once (BASE, API_KEY, TOKEN, ADMIN_TOKEN) and take path
// parameters from variables named after them, so a snippet can be pasted as it is. The PHP and
// Node versions need nothing installed: PHP's stream functions, Node's fetch.
import type { Credential } from './openapi.ts';

export interface RequestExample {
  method: string;
  /** OpenAPI path: /v1/gateway/payments/{payId}/cancel */
  path: string;
  query: Record<string, string>;
  credentials: Credential[];
  /** Optional headers worth showing (Idempotency-Key) with an example value. */
  headers: Record<string, string>;
  body: unknown;
}

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
const camel = (name: string) => name.replace(/[-_]+(\w)/g, (_, c: string) => c.toUpperCase());
const queryString = (q: Record<string, string>) => (Object.keys(q).length ? `?${new URLSearchParams(q).toString()}` : '');
const json = (v: unknown) => JSON.stringify(v, null, 2);

function authHeaders(credentials: Credential[]): [string, string, string, string][] {
  // [header, curl value, PHP value, Node value]
  return credentials.map((c) =>
    c === 'apikey'
      ? ['apikey', '$API_KEY', '$apiKey', 'apiKey']
      : c === 'bearer'
        ? ['Authorization', 'Bearer $TOKEN', 'Bearer $token', '`Bearer ${token}`']
        : ['Authorization', 'Bearer $ADMIN_TOKEN', 'Bearer $adminToken', '`Bearer ${adminToken}`'],
  );
}

export function curl(r: RequestExample): string {
  const url = `$BASE${r.path.replace(/\{(\w+)\}/g, (_, p: string) => `$${snake(p)}`)}${queryString(r.query)}`;
  const lines = [`curl -X ${r.method} "${url}"`];
  for (const [name, value] of authHeaders(r.credentials)) lines.push(`-H "${name}: ${value}"`);
  for (const [name, value] of Object.entries(r.headers)) lines.push(`-H '${name}: ${value}'`);
  if (r.body !== undefined) lines.push(`-H 'Content-Type: application/json'`, `-d '${json(r.body).replace(/'/g, `'\\''`)}'`);
  return lines.join(' \\\n  ');
}

function phpValue(v: unknown, indent: string): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof v !== 'object') return String(v);
  const inner = `${indent}    `;
  if (Array.isArray(v)) return v.length ? `[\n${v.map((x) => `${inner}${phpValue(x, inner)},`).join('\n')}\n${indent}]` : '[]';
  const entries = Object.entries(v);
  // An empty JSON object must stay an object: json_encode([]) would send [].
  if (!entries.length) return 'new stdClass()';
  return `[\n${entries.map(([k, x]) => `${inner}${phpValue(k, inner)} => ${phpValue(x, inner)},`).join('\n')}\n${indent}]`;
}

export function php(r: RequestExample): string {
  const url = `$base${r.path.replace(/\{(\w+)\}/g, (_, p: string) => `{$${camel(p)}}`)}${queryString(r.query)}`;
  const headers = [
    ...authHeaders(r.credentials).map(([name, , value]) => `"${name}: ${value}"`),
    ...Object.entries(r.headers).map(([name, value]) => phpValue(`${name}: ${value}`, '')),
    ...(r.body !== undefined ? ["'Content-Type: application/json'"] : []),
  ];
  return [
    '<?php',
    `$context = stream_context_create(['http' => [`,
    `    'method' => '${r.method}',`,
    `    'header' => implode("\\r\\n", [`,
    ...headers.map((h) => `        ${h},`),
    '    ]),',
    ...(r.body !== undefined ? [`    'content' => json_encode(${phpValue(r.body, '    ')}),`] : []),
    "    'ignore_errors' => true, // read problem JSON answers too",
    ']]);',
    `$answer = json_decode(file_get_contents("${url}", false, $context), true);`,
  ].join('\n');
}

export function node(r: RequestExample): string {
  const url = `\`\${base}${r.path.replace(/\{(\w+)\}/g, (_, p: string) => `\${${camel(p)}}`)}${queryString(r.query)}\``;
  const headers = [
    ...authHeaders(r.credentials).map(([name, , , value]) => `${name === 'apikey' ? name : `'${name}'`}: ${value},`),
    ...Object.entries(r.headers).map(([name, value]) => `'${name}': ${JSON.stringify(value).replace(/^"|"$/g, "'")},`),
    ...(r.body !== undefined ? ["'Content-Type': 'application/json',"] : []),
  ];
  const body = r.body !== undefined ? [`  body: JSON.stringify(${json(r.body).replace(/\n/g, '\n  ')}),`] : [];
  return [
    `const res = await fetch(${url}, {`,
    `  method: '${r.method}',`,
    ...(headers.length ? ['  headers: {', ...headers.map((h) => `    ${h}`), '  },'] : []),
    ...body,
    '});',
    `const answer = ${r.method === 'DELETE' ? 'res.status === 204 ? null : ' : ''}await res.json();`,
  ].join('\n');
}
