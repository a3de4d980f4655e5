// The bank profile's presenter: what the merchant API answers, reshaped as the real bank answers
// as far as it is known (../shared/research/tpay-reference.md): only the bank's endpoints, fields
// and nine resultCodes, its error shape and titles. Pure functions of Karibche's own answer; which
// merchant gets them is decided in profiles.ts. The table of differences is docs/bank-profile.md.
import { ERRORS, systemCode, type Operation } from '../errors/catalogue.ts';
import type { GatewayError } from '../errors/gateway-error.ts';

/** The bank's endpoints (tpay-reference 1), as `METHOD path` below the product prefix. */
export const BANK_ENDPOINTS: ReadonlySet<string> = new Set([
  'POST /access-token',
  'POST /payments',
  'GET /payments/:payId',
  'POST /payments/:payId/cancel',
  'POST /payments/:payId/completion',
  'POST /payments/execution',
  'POST /payments/:recId/delete',
]);

/** The nine resultCodes the bank documents (tpay-reference 4.3). */
export const BANK_RESULT_CODES: ReadonlySet<string> = new Set([
  'approved',
  'decline_general',
  'decline_expired_card',
  'decline_suspected_fraud',
  'decline_restricted_card',
  'decline_invalid_card_number',
  'decline_not_sufficient_funds',
  'decline_card_not_effective',
  'check_with_acquirer',
]);

/** Karibche's own result codes of a declined attempt, as the bank would report them. */
const KARIBCHE_DECLINES: Readonly<Record<string, string>> = {
  decline_authentication_failed: 'decline_general',
  decline_authentication_timeout: 'decline_general',
  not_processed: 'decline_general',
};

/** A resultCode as the bank reports it: one of its nine, or none. */
export function bankResultCode(code: string | null | undefined): string | null {
  if (!code) return null;
  if (BANK_RESULT_CODES.has(code)) return code;
  return KARIBCHE_DECLINES[code] ?? null;
}

/** `/v1/tpay/payments/:payId` → `/payments/:payId`. */
export const endpointPath = (routeUrl: string) => routeUrl.replace(/^\/v1\/[^/]+/, '').replace(/\/$/, '') || '/';

type View = Record<string, unknown>;
const pick = (v: View, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f]]));

const MESSAGES = ['httpStatusCode', 'developerMessage', 'userMessage'] as const;
/** Create payment (tpay-reference 3.4). */
const CREATED = [
  'payId',
  'status',
  'currency',
  'amount',
  'confirmedAmount',
  'links',
  'transactionId',
  'recId',
  'preAuth',
  'expirationMinutes',
  ...MESSAGES,
] as const;
/** Payment details and a saved-card charge (tpay-reference 4.1 and 7). */
const PAYMENT = [
  'payId',
  'status',
  'currency',
  'amount',
  'confirmedAmount',
  'returnedAmount',
  'links',
  'transactionId',
  'recurringCard',
  'paymentMethod',
  'rrn',
  'resultCode',
  'preAuth',
  'initiator',
  'paymentCardNumber',
  'extra',
  'extra2',
  ...MESSAGES,
] as const;
/** Completion (tpay-reference 6). */
const COMPLETION = ['status', 'amount', 'confirmedAmount', ...MESSAGES] as const;

/** A successful answer of a bank endpoint, as the bank gives it. */
export function bankView(endpoint: string, payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const v = payload as View;
  switch (endpoint) {
    case 'POST /payments': {
      const out = pick(v, CREATED);
      // recId is there when a card is to be saved.
      if (out.recId === null) delete out.recId;
      return out;
    }
    case 'GET /payments/:payId':
    case 'POST /payments/execution':
      // The bank's details carry no links (`null` in real output) and only its own resultCodes.
      return { ...pick(v, PAYMENT), links: null, resultCode: bankResultCode(v.resultCode as string | null) };
    case 'POST /payments/:payId/cancel':
    case 'POST /payments/:recId/delete':
      return pick(v, MESSAGES);
    case 'POST /payments/:payId/completion':
      return pick(v, COMPLETION);
    default:
      return payload;
  }
}

/** The bank's words for the errors it is known to answer with (tpay-reference 12.2). */
const KNOWN: ReadonlyMap<object, { title: string; detail: string; service?: string; code?: string }> = new Map<
  object,
  { title: string; detail: string; service?: string; code?: string }
>([
  // The sample on the bank's delete page: the API gateway's key check, named after the token service.
  [
    ERRORS.invalidApiKey,
    { title: 'Invalid Api Key', detail: 'Please make sure api key is valid', service: 'tpay-access-token' },
  ],
  // The access-token sample: empty title and detail, an empty `code`.
  [ERRORS.invalidClientCredentials, { title: '', detail: '', service: 'tpay-access-token', code: '' }],
  // The only other documented titles are the QR API's; the closest the bank has published.
  [ERRORS.invalidToken, { title: 'Unauthorized', detail: '' }],
  [ERRORS.paymentNotFound, { title: 'InvalidPayment', detail: 'PaymentNotFound' }],
  [ERRORS.internal, { title: 'Internal Server Error', detail: 'An error occurred while processing your request' }],
]);

/** Problem bodies the bank's validation answers use the QR API's title for. */
const INVALID_PARAMETER: ReadonlySet<object> = new Set([ERRORS.invalidRequest, ERRORS.malformedBody]);

/**
 * The bank's problem JSON (tpay-reference 12.1): `type` on the bank's error pages, `status` as the
 * string its samples show, `systemCode` in its sentence form, a resultCode only when it is one of
 * the nine, an ASP.NET-style traceId; no invalidParams, no requestId.
 */
export function bankProblem(op: Operation, err: GatewayError, requestId: string): Record<string, string> {
  const def = err.def;
  const known = KNOWN.get(def);
  const code = systemCode(def === ERRORS.routeNotFound ? 'system' : op, def)
    .split('.')
    .slice(1)
    .join('.');
  const body: Record<string, string> = {
    type: `https://developers.tbcbank.ge/docs/error-type-${def.status}`,
    title: known?.title ?? (INVALID_PARAMETER.has(def) ? 'InvalidParameter' : def.title),
    status: String(def.status),
    detail: known?.detail ?? err.detail ?? def.meaning,
    systemCode: `System code for problem is ${known?.service ?? `tpay-${op}`}.${code}`,
  };
  if (known?.code !== undefined) body.code = known.code;
  const resultCode = bankResultCode(err.resultCode);
  if (resultCode) body.resultCode = resultCode;
  body.traceId = traceId(requestId);
  return body;
}

/** An ASP.NET Core style trace id (W3C traceparent) made from the request id. */
function traceId(requestId: string): string {
  const hex = requestId
    .replace(/[^0-9a-f]/gi, '')
    .toLowerCase()
    .padEnd(32, '0')
    .slice(0, 32);
  return `00-${hex}-${hex.slice(16)}-00`;
}
