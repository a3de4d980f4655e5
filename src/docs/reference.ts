// The API reference, built from the OpenAPI document the gateway serves (itself generated from the
// route schemas), so it can never describe an endpoint that is not there. One model per operation
// — parameters, body fields, credentials, an example request in curl, PHP and Node, an example
// response, the operation's error codes — rendered as an HTML page and as its Markdown twin.
import { sample } from 'openapi-sampler';
import { IDEMPOTENCY_KEYS } from '../api/examples.ts';
import { catalogue } from '../errors/catalogue.ts';
import type { Credential } from './openapi.ts';
import { curl, node, php, type RequestExample } from './snippets.ts';

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema node of the OpenAPI document, walked generically
type Schema = Record<string, any>;
export interface OpenApiDocument {
  info: { title: string; description?: string; version: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Schema>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, Schema> };
}

export interface Field {
  name: string;
  in: 'path' | 'query' | 'header' | 'body';
  type: string;
  required: boolean;
  description: string;
}

export interface ReferenceOperation {
  /** Anchor: `post-v1-gateway-payments-payid-cancel`. */
  id: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  description: string;
  credentials: Credential[];
  fields: Field[];
  request: RequestExample;
  snippets: { curl: string; php: string; node: string };
  response: { status: string; example: unknown } | null;
  /** The catalogue's operation name (errors page anchor `op-<name>`) and its codes. */
  errors: { operation: string; codes: { code: string; status: number; title: string }[] } | null;
}

export interface ReferenceGroup {
  tag: string;
  id: string;
  operations: ReferenceOperation[];
}

/** Tags in the order a merchant meets them; a tag not listed comes after these. */
const TAG_ORDER = [
  'Authentication',
  'Payments',
  'Callbacks',
  'Events',
  'API keys',
  'Developers',
  'Operator',
  'Sandbox',
];
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function resolver(doc: OpenApiDocument) {
  const resolve = (s: Schema | undefined): Schema => {
    if (!s) return {};
    if (typeof s.$ref === 'string')
      return resolve(doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')]);
    return s;
  };
  return resolve;
}

function typeName(s: Schema, resolve: (s: Schema) => Schema): string {
  s = resolve(s);
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) return [...new Set(union.map((u: Schema) => typeName(u, resolve)))].join(' | ');
  if (Array.isArray(s.type)) return s.type.join(' | ');
  if (s.type === 'array') return `${typeName(s.items ?? {}, resolve)}[]`;
  return s.type ?? 'any';
}

/** Every property of a body schema, nested ones as `amount.currency` and `items[].price`. */
function bodyFields(schema: Schema, resolve: (s: Schema) => Schema, prefix = '', parentRequired = true): Field[] {
  const s = resolve(schema);
  const objectLike = (x: Schema) => resolve(x).type === 'object' && resolve(x).properties;
  const out: Field[] = [];
  for (const [name, raw] of Object.entries<Schema>(s.properties ?? {})) {
    const p = resolve(raw);
    const required = parentRequired && (s.required ?? []).includes(name);
    const full = `${prefix}${name}`;
    out.push({ name: full, in: 'body', type: typeName(p, resolve), required, description: p.description ?? '' });
    if (objectLike(p)) out.push(...bodyFields(p, resolve, `${full}.`, required));
    else if (p.type === 'array' && p.items && objectLike(p.items))
      out.push(...bodyFields(p.items, resolve, `${full}[].`, required));
  }
  return out;
}

type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };

/**
 * The route schema's own example (@fastify/swagger moves it to the media type object: `example`, or
 * `examples` when there are several), else one generated from the schema.
 */
function exampleOf(media: Media | undefined, doc: OpenApiDocument): unknown {
  if (!media?.schema) return undefined;
  const own =
    media.example ??
    Object.values(media.examples ?? {})[0]?.value ??
    media.schema.examples?.[0] ??
    media.schema.example;
  if (own !== undefined) return own;
  return sample(media.schema as never, { skipReadOnly: true, quiet: true }, doc as never);
}

const jsonMedia = (content: Record<string, Media> | undefined): Media | undefined =>
  content?.['application/json'] ?? Object.values(content ?? {})[0];

function operationErrors(operation: string | undefined): ReferenceOperation['errors'] {
  if (!operation) return null;
  const codes = catalogue()
    .filter((r) => r.op === operation)
    .map((r) => ({ code: r.code, status: r.def.status, title: r.def.title }));
  return codes.length ? { operation, codes } : null;
}

function buildOperation(doc: OpenApiDocument, path: string, method: string, op: Schema): ReferenceOperation {
  const resolve = resolver(doc);
  const credentials = Object.keys(op.security?.[0] ?? {}) as Credential[];
  const params: Schema[] = op.parameters ?? [];
  const fields: Field[] = params.map((p) => ({
    name: p.name,
    in: p.in,
    type: typeName(p.schema ?? {}, resolve),
    required: Boolean(p.required),
    description: p.description ?? '',
  }));
  const body = jsonMedia(op.requestBody?.content);
  if (body?.schema) fields.push(...bodyFields(body.schema, resolve));
  const query = Object.fromEntries(
    params
      .filter((p) => p.in === 'query' && (p.example ?? p.schema?.examples?.[0]) !== undefined)
      .map((p) => [p.name, String(p.example ?? p.schema.examples[0])]),
  );
  // A key of its own per operation: run one after the other, the examples never reuse one (422).
  const operation: string | undefined = op['x-karibche-operation'];
  const key = IDEMPOTENCY_KEYS[operation ?? ''] ?? `${slug(`${method}-${path}`)}-1`;
  const headers = Object.fromEntries(
    params
      .filter((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')
      .map(() => ['Idempotency-Key', key]),
  );
  const request: RequestExample = {
    method: method.toUpperCase(),
    path,
    query,
    credentials,
    headers,
    body: body?.schema ? exampleOf(body, doc) : undefined,
  };
  const ok = Object.entries<Schema>(op.responses ?? {}).find(([status]) => /^2/.test(status));
  const okMedia = ok ? jsonMedia(ok[1].content) : undefined;
  return {
    id: slug(`${method}-${path}`),
    method: method.toUpperCase(),
    path,
    tag: op.tags?.[0] ?? 'Other',
    summary: op.summary ?? `${method.toUpperCase()} ${path}`,
    description: op.description ?? '',
    credentials,
    fields,
    request,
    snippets: { curl: curl(request), php: php(request), node: node(request) },
    response: ok ? { status: ok[0], example: exampleOf(okMedia, doc) } : null,
    errors: operationErrors(op['x-karibche-operation']),
  };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function buildReference(doc: OpenApiDocument): ReferenceGroup[] {
  const groups = new Map<string, ReferenceOperation[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      const op = buildOperation(doc, path, method, item[method]);
      groups.set(op.tag, [...(groups.get(op.tag) ?? []), op]);
    }
  }
  const rank = (tag: string) => (TAG_ORDER.includes(tag) ? TAG_ORDER.indexOf(tag) : TAG_ORDER.length);
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([tag, operations]) => ({ tag, id: `tag-${slug(tag)}`, operations }));
}

export const CREDENTIAL_HEADERS: Record<Credential, string> = {
  apikey: 'apikey: <API key>',
  bearer: 'Authorization: Bearer <access token>',
  admin: 'Authorization: Bearer <admin token>',
};

/** The variables every example reads, explained once at the top of the reference (the quick start sets them). */
export const VARIABLES: [string, string][] = [
  ['BASE / $base / base', 'the gateway’s address, e.g. http://127.0.0.1:8080'],
  [
    'API_KEY / $apiKey / apiKey',
    'the merchant’s API key (credentials.apiKey in data/demo-merchant.json in the sandbox)',
  ],
  ['CLIENT_ID / $clientId / clientId', 'the merchant’s client id (credentials.clientId)'],
  ['CLIENT_SECRET / $clientSecret / clientSecret', 'the merchant’s client secret (credentials.clientSecret)'],
  [
    'CALLBACK_SECRET / $callbackSecret / callbackSecret',
    'the secret that signs the merchant’s callbacks (credentials.callbackSecret)',
  ],
  ['TOKEN / $token / token', 'an access token from POST /v1/gateway/access-token (valid 24 h)'],
  ['ADMIN_TOKEN / $adminToken / adminToken', 'the operator token (data/admin-token in the sandbox)'],
  [
    'PAY_ID, REC_ID, … / $payId, … / payId, …',
    'the path parameters of the operation, and the ids in a body (a saved card’s recId)',
  ],
];

/** The shell variables a reader sets once (the quick start tells how) and every example reads. */
export const READER_VARIABLES = VARIABLES.map(([names]) => names.split(' / ')[0]!).filter((name) =>
  /^[A-Z_]+$/.test(name),
);
