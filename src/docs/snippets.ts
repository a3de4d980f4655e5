// Example requests in curl, PHP and Node for the API reference. They read their credentials from
// variables the reference explains once (BASE, API_KEY, TOKEN, ADMIN_TOKEN) and take path
// parameters from variables named after them, so a snippet can be pasted as it is. The PHP and
// Node versions need nothing installed: PHP's stream functions, Node's fetch. An id or a secret in
// an example body that is the reader's own (their client id and secret, a saved card's recId) is
// shown as the variable that holds it, never as the literal of the merchant the example was taken from.
import { CLIENT_ID, CLIENT_SECRET, REC_ID } from '../api/examples.ts';
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
const queryString = (q: Record<string, string>) =>
  Object.keys(q).length ? `?${new URLSearchParams(q).toString()}` : '';
const json = (v: unknown) => JSON.stringify(v, null, 2);

/** Example body values that are the reader's own, by the variable (curl's name) that holds them. */
const READER_VALUES = new Map<unknown, string>([
  [CLIENT_ID, 'CLIENT_ID'],
  [CLIENT_SECRET, 'CLIENT_SECRET'],
  [REC_ID, 'REC_ID'],
]);
/** JSON text in which each of the reader's values is `variable(name)` instead. */
function withVariables(text: string, variable: (curlName: string) => string): string {
  for (const [value, name] of READER_VALUES) text = text.replaceAll(JSON.stringify(value), variable(name));
  return text;
}
/** A curl variable's name in PHP and Node: CLIENT_ID → clientId. */
const variableName = (curlName: string) => camel(curlName.toLowerCase());

function authHeaders(credentials: Credential[]): [string, string, string, string][] {
  // [header, curl value, PHP value, Node value]
  return credentials.map((c) =>
    c === 'apikey'
      ? ['apikey', '$API_KEY', '$apiKey', 'apiKey']
      : c === 'bearer'
        ? // biome-ignore lint/suspicious/noTemplateCurlyInString: the Node example's source text, a template literal
          ['Authorization', 'Bearer $TOKEN', 'Bearer $token', '`Bearer ${token}`']
        : // biome-ignore lint/suspicious/noTemplateCurlyInString: the Node example's source text, a template literal
          ['Authorization', 'Bearer $ADMIN_TOKEN', 'Bearer $adminToken', '`Bearer ${adminToken}`'],
  );
}

export function curl(r: RequestExample): string {
  const url = `$BASE${r.path.replace(/\{(\w+)\}/g, (_, p: string) => `$${snake(p)}`)}${queryString(r.query)}`;
  const lines = [`curl -X ${r.method} "${url}"`];
  for (const [name, value] of authHeaders(r.credentials)) lines.push(`-H "${name}: ${value}"`);
  for (const [name, value] of Object.entries(r.headers)) lines.push(`-H '${name}: ${value}'`);
  // Inside the single-quoted body a variable closes the quotes: '{"recId": "'"$REC_ID"'"}'.
  if (r.body !== undefined)
    lines.push(
      `-H 'Content-Type: application/json'`,
      `-d '${withVariables(json(r.body).replace(/'/g, `'\\''`), (name) => `"'"$${name}"'"`)}'`,
    );
  return lines.join(' \\\n  ');
}

function phpValue(v: unknown, indent: string): string {
  if (v === null || v === undefined) return 'null';
  if (READER_VALUES.has(v)) return `$${variableName(READER_VALUES.get(v)!)}`;
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof v !== 'object') return String(v);
  const inner = `${indent}    `;
  if (Array.isArray(v))
    return v.length ? `[\n${v.map((x) => `${inner}${phpValue(x, inner)},`).join('\n')}\n${indent}]` : '[]';
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
  const body =
    r.body !== undefined
      ? [`  body: JSON.stringify(${withVariables(json(r.body), variableName).replace(/\n/g, '\n  ')}),`]
      : [];
  return [
    `const res = await fetch(${url}, {`,
    `  method: '${r.method}',`,
    ...(headers.length ? ['  headers: {', ...headers.map((h) => `    ${h}`), '  },'] : []),
    ...body,
    '});',
    `const answer = ${r.method === 'DELETE' ? 'res.status === 204 ? null : ' : ''}await res.json();`,
  ].join('\n');
}
