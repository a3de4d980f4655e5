// A Postman collection (format v2.1) generated from the same reference model as /docs/api, so it
// has one request per operation with the reference's example body and example response. Folders
// follow the reference's groups; credentials and path parameters are collection variables, and the
// token request stores the token it gets (as a created payment stores its payId) for the next calls.
import type { ReferenceGroup, ReferenceOperation } from './reference.ts';

export const POSTMAN_SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

const STATUS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No Content' };
const camel = (name: string) => name.replace(/[-_]+(\w)/g, (_, c: string) => c.toUpperCase());

function auth(op: ReferenceOperation) {
  const bearer = (variable: string) => ({
    type: 'bearer',
    bearer: [{ key: 'token', value: `{{${variable}}}`, type: 'string' }],
  });
  if (op.credentials.includes('admin')) return bearer('adminToken');
  if (op.credentials.includes('bearer')) return bearer('token');
  return { type: 'noauth' };
}

/** What a request's test script keeps for the requests after it. */
function events(op: ReferenceOperation) {
  const keep = (lines: string[]) => [{ listen: 'test', script: { type: 'text/javascript', exec: lines } }];
  if (op.path.endsWith('/access-token'))
    return keep([
      "if (pm.response.code === 200) pm.collectionVariables.set('token', pm.response.json().access_token);",
    ]);
  if (op.method === 'POST' && /\/payments$/.test(op.path))
    return keep(["if (pm.response.code === 200) pm.collectionVariables.set('payId', pm.response.json().payId);"]);
  return undefined;
}

function request(op: ReferenceOperation, baseUrl: string) {
  const segments = op.path
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/^\{(\w+)\}$/, ':$1'));
  const pathParams = op.fields.filter((f) => f.in === 'path');
  const query = Object.entries(op.request.query).map(([key, value]) => ({ key, value }));
  const header = [
    ...(op.credentials.includes('apikey') ? [{ key: 'apikey', value: '{{apiKey}}', type: 'text' }] : []),
    ...Object.entries(op.request.headers).map(([key, value]) => ({
      key,
      value: key === 'Idempotency-Key' ? '{{$guid}}' : value,
      type: 'text',
    })),
    ...(op.request.body !== undefined ? [{ key: 'Content-Type', value: 'application/json', type: 'text' }] : []),
  ];
  // The token request sends the collection's credentials, not the reference's example values.
  const body = op.path.endsWith('/access-token')
    ? { client_id: '{{clientId}}', client_secret: '{{clientSecret}}' }
    : op.request.body;
  const qs = query.length ? `?${query.map((q) => `${q.key}=${q.value}`).join('&')}` : '';
  return {
    method: op.method,
    auth: auth(op),
    header,
    url: {
      raw: `{{baseUrl}}/${segments.join('/')}${qs}`,
      host: ['{{baseUrl}}'],
      path: segments,
      ...(query.length ? { query } : {}),
      ...(pathParams.length
        ? {
            variable: pathParams.map((p) => ({
              key: p.name,
              value: `{{${camel(p.name)}}}`,
              description: p.description,
            })),
          }
        : {}),
    },
    ...(body !== undefined
      ? { body: { mode: 'raw', raw: JSON.stringify(body, null, 2), options: { raw: { language: 'json' } } } }
      : {}),
    description: [op.summary, op.description, `Reference: ${baseUrl}/docs/api#${op.id}`].filter(Boolean).join('\n\n'),
  };
}

export function postmanCollection(title: string, description: string, baseUrl: string, groups: ReferenceGroup[]) {
  const pathVariables = new Set(
    groups.flatMap((g) =>
      g.operations.flatMap((o) => o.fields.filter((f) => f.in === 'path').map((f) => camel(f.name))),
    ),
  );
  return {
    info: { name: title, description, schema: POSTMAN_SCHEMA },
    item: groups.map((g) => ({
      name: g.tag,
      item: g.operations.map((op) => {
        const req = request(op, baseUrl);
        const ev = events(op);
        return {
          name: op.summary,
          ...(ev ? { event: ev } : {}),
          request: req,
          response: op.response
            ? [
                {
                  name: 'Example',
                  originalRequest: req,
                  status: STATUS_TEXT[op.response.status] ?? op.response.status,
                  code: Number(op.response.status) || 200,
                  header: [{ key: 'Content-Type', value: 'application/json' }],
                  body: op.response.example === undefined ? '' : JSON.stringify(op.response.example, null, 2),
                },
              ]
            : [],
        };
      }),
    })),
    variable: [
      { key: 'baseUrl', value: baseUrl },
      { key: 'apiKey', value: '' },
      { key: 'clientId', value: '' },
      { key: 'clientSecret', value: '' },
      { key: 'token', value: '' },
      { key: 'adminToken', value: '' },
      ...[...pathVariables].filter((v) => v !== 'clientId').map((key) => ({ key, value: '' })),
    ],
  };
}
