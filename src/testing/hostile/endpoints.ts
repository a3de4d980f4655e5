// Every endpoint the hostile-input suites attack, with a valid body to start from. The grammar suite
// checks this list against Fastify's route table, so a new route cannot escape the hostile suites.
import type { InjectOptions } from 'fastify';
import { SPLIT_IBAN, basicPayment } from '../harness.ts';

export type Auth = 'merchant' | 'admin' | 'dashboard' | 'none';
export interface Endpoint {
  method: NonNullable<InjectOptions['method']>;
  /** With :payId, :recId, :clientId, :token segments filled from the target pools or hostile text. */
  path: string;
  auth: Auth;
  /** A valid body to mutate. */
  body?: Record<string, unknown>;
  /** Form-encoded (checkout, dashboard, access token) rather than JSON. */
  form?: boolean;
}

/** The dashboard user the arena signs in as (a user of the arena's other merchant). */
export const DASHBOARD_LOGIN = { email: 'fuzz@shop.example', password: 'fuzz passphrase 1234' };
const NONCE = '0123456789abcdef0123456789abcdef';
/** Callback URLs nothing listens on (the discard port refuses at once): never the internet. */
const NOWHERE = 'http://127.0.0.1:9';

export const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: '/v1/gateway/access-token',
    auth: 'none',
    form: true,
    body: { client_id: '', client_secret: '' },
  },
  {
    method: 'POST',
    path: '/v1/gateway/payments',
    auth: 'merchant',
    body: basicPayment({
      extra: SPLIT_IBAN,
      extra2: '1',
      saveCard: true,
      methods: [5],
      merchantPaymentId: 'order-1',
      description: 'Shoes',
      installmentProducts: [{ name: 'x', price: 10, quantity: 1 }],
    }),
  },
  { method: 'GET', path: '/v1/gateway/payments/:payId', auth: 'merchant' },
  {
    method: 'POST',
    path: '/v1/gateway/payments/:payId/cancel',
    auth: 'merchant',
    body: { amount: '1.00', extra: SPLIT_IBAN, extra2: '0.5' },
  },
  { method: 'POST', path: '/v1/gateway/payments/:payId/completion', auth: 'merchant', body: { amount: '1.00' } },
  {
    method: 'POST',
    path: '/v1/gateway/payments/execution',
    auth: 'merchant',
    body: { recId: ':recId', money: { amount: '1.00', currency: 'GEL' }, initiator: 'merchant' },
  },
  { method: 'POST', path: '/v1/gateway/payments/:recId/delete', auth: 'merchant' },
  { method: 'DELETE', path: '/v1/gateway/payments/:recId', auth: 'merchant' },
  { method: 'GET', path: '/v1/gateway/payments/:payId/callbacks', auth: 'merchant' },
  { method: 'POST', path: '/v1/gateway/payments/:payId/callbacks/redeliver', auth: 'merchant', body: {} },
  { method: 'GET', path: '/v1/gateway/payments', auth: 'merchant' },
  { method: 'GET', path: '/v1/gateway/api-keys', auth: 'merchant' },
  { method: 'POST', path: '/v1/gateway/api-keys', auth: 'merchant', body: {} },
  // :keyId is never filled: no such key, so the fuzzing merchant keeps its own.
  { method: 'DELETE', path: '/v1/gateway/api-keys/:keyId', auth: 'merchant' },
  { method: 'GET', path: '/v1/gateway/callbacks', auth: 'merchant' },
  { method: 'POST', path: '/v1/gateway/callbacks/redeliver', auth: 'merchant', body: { state: 'failed' } },
  { method: 'GET', path: '/v1/gateway/requests', auth: 'merchant' },
  { method: 'GET', path: '/v1/gateway/events', auth: 'merchant' },
  { method: 'GET', path: '/v1/gateway/events/stream', auth: 'merchant' },
  {
    method: 'POST',
    path: '/admin/v1/merchants',
    auth: 'admin',
    body: { name: 'Fuzz', currencies: ['GEL'], methods: [5], callbackUrlPrefixes: ['https://x.example/'] },
  },
  { method: 'GET', path: '/admin/v1/merchants', auth: 'admin' },
  { method: 'GET', path: '/admin/v1/merchants/:clientId', auth: 'admin' },
  {
    method: 'PATCH',
    path: '/admin/v1/merchants/:clientId',
    auth: 'admin',
    body: { name: 'Renamed', testMode: true, brandColor: '#123456' },
  },
  { method: 'POST', path: '/admin/v1/merchants/:clientId/api-keys', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/merchants/:clientId/client-secret', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/merchants/:clientId/callback-secret', auth: 'admin' },
  { method: 'POST', path: '/admin/v1/signing-keys', auth: 'admin' },
  { method: 'GET', path: '/sandbox/v1/clock', auth: 'admin' },
  { method: 'POST', path: '/sandbox/v1/clock', auth: 'admin', body: { advanceSeconds: 60 } },
  {
    method: 'POST',
    path: '/sandbox/v1/payments/:payId/simulate',
    auth: 'admin',
    body: { method: 5, card: '4000000000000002', otp: '1234' },
  },
  { method: 'POST', path: '/sandbox/v1/callbacks/test', auth: 'admin', body: { url: 'http://127.0.0.1:9/x' } },
  // The operator's reset of a merchant with no payments: resetting the fuzzing merchants would
  // empty the targets every other case needs.
  { method: 'POST', path: '/sandbox/v1/reset', auth: 'admin', body: { clientId: ':bystander' } },
  // Faults that decline: a lost or failed operation is a 503/502 by design, which the suites count as a server error.
  {
    method: 'POST',
    path: '/sandbox/v1/faults',
    auth: 'merchant',
    body: { operation: 'authorise', outcome: 'decline', times: 1 },
  },
  { method: 'GET', path: '/sandbox/v1/faults', auth: 'merchant' },
  { method: 'DELETE', path: '/sandbox/v1/faults', auth: 'merchant' },
  // An address the merchant has not registered: refused at once (a real run takes seconds).
  {
    method: 'POST',
    path: '/sandbox/v1/callbacks/conformance',
    auth: 'merchant',
    body: { url: 'https://x.example/cb', waitSeconds: 1 },
  },
  // :runId is never filled: no such run.
  { method: 'GET', path: '/sandbox/v1/callbacks/conformance/:runId', auth: 'merchant' },
  { method: 'GET', path: '/checkout/:payId', auth: 'none' },
  { method: 'GET', path: '/checkout/:payId/brand.css', auth: 'none' },
  { method: 'GET', path: '/checkout/:payId/status', auth: 'none' },
  {
    method: 'POST',
    path: '/checkout/:payId/pay',
    auth: 'none',
    form: true,
    body: { method: '5', number: '4000000000000002', expiry: '12/30', securityCode: '123', holder: 'A B' },
  },
  { method: 'GET', path: '/checkout/:payId/3ds', auth: 'none' },
  // Every form the pay page posts: the card, the internet-bank login, the wallets, installment.
  {
    method: 'POST',
    path: '/checkout/:payId/pay',
    auth: 'none',
    form: true,
    body: { method: '7', username: 'empty', password: 'demo' },
  },
  { method: 'POST', path: '/checkout/:payId/pay', auth: 'none', form: true, body: { method: '9', outcome: 'decline' } },
  { method: 'POST', path: '/checkout/:payId/pay', auth: 'none', form: true, body: { method: '14', outcome: 'cancel' } },
  {
    method: 'POST',
    path: '/checkout/:payId/pay',
    auth: 'none',
    form: true,
    body: { method: '8', outcome: 'decline', term: '12' },
  },
  { method: 'POST', path: '/checkout/:payId/3ds', auth: 'none', form: true, body: { code: '0000' } },
  { method: 'POST', path: '/checkout/:payId/3ds', auth: 'none', form: true, body: { action: 'resend' } },
  { method: 'POST', path: '/checkout/:payId/3ds', auth: 'none', form: true, body: { action: 'cancel' } },
  { method: 'GET', path: '/checkout/:payId/qr/:token', auth: 'none' },
  { method: 'POST', path: '/checkout/:payId/qr/:token', auth: 'none', form: true, body: { outcome: 'decline' } },
  { method: 'GET', path: '/checkout/assets/checkout.js', auth: 'none' },
  { method: 'GET', path: '/checkout/assets/checkout.css', auth: 'none' },
  { method: 'GET', path: '/favicon.ico', auth: 'none' },
  {
    method: 'POST',
    path: '/admin/v1/merchants/:clientId/users',
    auth: 'admin',
    body: { email: 'fuzz-user@shop.example', password: 'a long passphrase' },
  },
  { method: 'GET', path: '/dashboard', auth: 'none' },
  { method: 'GET', path: '/dashboard/sign-in', auth: 'dashboard' },
  { method: 'POST', path: '/dashboard/sign-in', auth: 'dashboard', form: true, body: { ...DASHBOARD_LOGIN } },
  { method: 'POST', path: '/dashboard/sign-out', auth: 'dashboard', form: true, body: {} },
  { method: 'GET', path: '/dashboard/payments', auth: 'dashboard' },
  { method: 'GET', path: '/dashboard/payments/export.csv', auth: 'dashboard' },
  { method: 'GET', path: '/dashboard/payments/:payId', auth: 'dashboard' },
  { method: 'POST', path: '/dashboard/payments/:payId/redeliver', auth: 'dashboard', form: true, body: {} },
  { method: 'GET', path: '/dashboard/payments/:payId/refund', auth: 'dashboard' },
  {
    method: 'POST',
    path: '/dashboard/payments/:payId/refund',
    auth: 'dashboard',
    form: true,
    body: { nonce: NONCE, step: 'review', amount: '1.00', extra2: '0.50' },
  },
  { method: 'GET', path: '/dashboard/payments/:payId/complete', auth: 'dashboard' },
  {
    method: 'POST',
    path: '/dashboard/payments/:payId/complete',
    auth: 'dashboard',
    form: true,
    body: { nonce: NONCE, step: 'confirm', amount: '1.00' },
  },
  { method: 'GET', path: '/dashboard/payments/:payId/void', auth: 'dashboard' },
  {
    method: 'POST',
    path: '/dashboard/payments/:payId/void',
    auth: 'dashboard',
    form: true,
    body: { nonce: NONCE, step: 'review', extra2: '0' },
  },
  { method: 'GET', path: '/dashboard/callbacks', auth: 'dashboard' },
  {
    method: 'POST',
    path: '/dashboard/callbacks/default-url',
    auth: 'dashboard',
    form: true,
    body: { url: `${NOWHERE}/cb` },
  },
  { method: 'POST', path: '/dashboard/callbacks/addresses', auth: 'dashboard', form: true, body: { address: NOWHERE } },
  {
    method: 'POST',
    path: '/dashboard/callbacks/addresses/remove',
    auth: 'dashboard',
    form: true,
    body: { address: NOWHERE },
  },
  {
    method: 'POST',
    path: '/dashboard/callbacks/redeliver',
    auth: 'dashboard',
    form: true,
    body: { state: 'undeliverable', callbackIds: 'evt_1' },
  },
  {
    method: 'POST',
    path: '/dashboard/callbacks/test',
    auth: 'dashboard',
    form: true,
    body: { testUrl: `${NOWHERE}/cb` },
  },
  {
    method: 'POST',
    path: '/dashboard/callbacks/signing-secret',
    auth: 'dashboard',
    form: true,
    body: { confirm: 'yes' },
  },
  { method: 'GET', path: '/dashboard/developers', auth: 'dashboard' },
  { method: 'POST', path: '/dashboard/developers/api-keys', auth: 'dashboard', form: true, body: {} },
  {
    method: 'POST',
    path: '/dashboard/developers/api-keys/revoke',
    auth: 'dashboard',
    form: true,
    body: { keyId: 'ak_0000000000000000', confirm: 'yes' },
  },
  {
    method: 'POST',
    path: '/dashboard/developers/client-secret',
    auth: 'dashboard',
    form: true,
    body: { confirm: 'yes' },
  },
  { method: 'GET', path: '/dashboard/developers/requests', auth: 'dashboard' },
  { method: 'GET', path: '/dashboard/settings', auth: 'dashboard' },
  {
    method: 'POST',
    path: '/dashboard/settings',
    auth: 'dashboard',
    form: true,
    body: { name: 'Fuzz shop', brandColor: '#123456', logoUrl: '' },
  },
  { method: 'GET', path: '/dashboard/assets/dashboard.css', auth: 'none' },
  { method: 'GET', path: '/dashboard/assets/dashboard.js', auth: 'none' },
  { method: 'GET', path: '/', auth: 'none' },
  { method: 'GET', path: '/healthz', auth: 'none' },
  { method: 'GET', path: '/readyz', auth: 'none' },
  { method: 'GET', path: '/metrics', auth: 'none' },
  { method: 'GET', path: '/openapi.json', auth: 'none' },
  { method: 'GET', path: '/docs', auth: 'none' },
  { method: 'GET', path: '/docs/errors', auth: 'none' },
  { method: 'GET', path: '/docs/api', auth: 'none' },
  { method: 'GET', path: '/docs/api.md', auth: 'none' },
  { method: 'GET', path: '/docs/postman.json', auth: 'none' },
  { method: 'GET', path: '/docs/assets/docs.css', auth: 'none' },
  { method: 'GET', path: '/docs/assets/docs.js', auth: 'none' },
  { method: 'GET', path: '/docs/search.json', auth: 'none' },
  { method: 'GET', path: '/docs/*', auth: 'none' },
  { method: 'GET', path: '/llms.txt', auth: 'none' },
];

/** The merchant API is served under both product segments (SPEC: `/v1/gateway`, the bank's `/v1/tpay`). */
export const PRODUCT_ALIASES: readonly string[] = ['/v1/gateway', '/v1/tpay'];

/** `METHOD /path/:param` keys of the endpoints, with the product segment folded to /v1/gateway. */
export function endpointKey(method: string, path: string): string {
  const folded = PRODUCT_ALIASES.reduce(
    (p, prefix) => (p.startsWith(`${prefix}/`) ? `/v1/gateway${p.slice(prefix.length)}` : p),
    path,
  );
  // Fastify's route tree prints a wildcard route `/docs/*` as `/docs` with a child `*`.
  return `${method.toUpperCase()} ${folded.replace(/:[A-Za-z]+/g, ':_').replace(/\/\*$/, '*')}`;
}

/** The routes Fastify serves, as endpoint keys, read from its route tree (`printRoutes({ commonPrefix: false })`; HEAD is GET's twin). */
export function servedRoutes(tree: string): string[] {
  const stack: string[] = [];
  const keys: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!.replace(/:[A-Za-z]+(\|:[A-Za-z]+)*/g, ':x'));
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD'))
      keys.push(endpointKey(method, stack.join('')));
  }
  return keys;
}
