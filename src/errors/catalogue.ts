// The one catalogue of errors. Every problem the gateway answers with comes from here, so each has
// a stable systemCode `{operation}.{status}.{nnn}` and an HTTP status; docs/ERRORS.md is generated
// from this file (npm run docs:errors) and a test keeps the two in step.

export const OPERATIONS = [
  'access-token',
  'create-payment',
  'get-payment',
  'list-payments',
  'api-keys',
  'request-log',
  'cancel-payment',
  'complete-payment',
  'execute-payment',
  'delete-card',
  'callbacks',
  'events',
  'admin',
  'sandbox',
  'checkout',
  'dashboard',
  'system',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Merchant API operations (authenticated with apikey + bearer token). */
export const MERCHANT_OPERATIONS: readonly Operation[] = [
  'create-payment',
  'get-payment',
  'list-payments',
  'api-keys',
  'request-log',
  'cancel-payment',
  'complete-payment',
  'execute-payment',
  'delete-card',
  'callbacks',
  'events',
];
const POST_OPERATIONS: readonly Operation[] = [
  'create-payment',
  'cancel-payment',
  'complete-payment',
  'execute-payment',
  'delete-card',
  'callbacks',
  'api-keys',
];
/** The pages a person reads (html/error-page.ts shows these errors as a page in the surface's words). */
const PAGE_OPERATIONS: readonly Operation[] = ['checkout', 'dashboard'];
const BODY_OPERATIONS: readonly Operation[] = [
  'access-token',
  ...POST_OPERATIONS,
  'admin',
  'sandbox',
  ...PAGE_OPERATIONS,
];
const ALL: readonly Operation[] = OPERATIONS;

export interface ErrorDef {
  readonly status: number;
  readonly nnn: string;
  readonly title: string;
  /** What it means and what the caller should do; shown in the docs. */
  readonly meaning: string;
  /** Operations where it can occur. */
  readonly ops: readonly Operation[];
  /** Business result code carried by 400 rejections. */
  readonly resultCode?: string;
}

function def(
  status: number,
  nnn: string,
  title: string,
  ops: readonly Operation[],
  meaning: string,
  resultCode?: string,
): ErrorDef {
  return {
    status,
    nnn,
    title,
    meaning,
    ops,
    resultCode: resultCode ?? (status === 400 ? 'invalid_request' : undefined),
  };
}

const CREATE: readonly Operation[] = ['create-payment'];

export const ERRORS = {
  // Shared by every operation.
  invalidRequest: def(
    400,
    '001',
    'Invalid request',
    [...BODY_OPERATIONS, 'get-payment', 'list-payments', 'request-log', 'events'],
    'One or more fields are invalid; `invalidParams` lists each with the reason (and its own systemCode when a specific rule failed).',
  ),
  malformedBody: def(
    400,
    '002',
    'Malformed request body',
    BODY_OPERATIONS,
    'The body is not valid JSON (or form data) for its Content-Type.',
  ),
  invalidApiKey: def(
    401,
    '001',
    'Invalid API key',
    ['access-token', ...MERCHANT_OPERATIONS, 'sandbox'],
    'The `apikey` header is missing, unknown, revoked, or belongs to another merchant than the token.',
  ),
  invalidToken: def(
    401,
    '002',
    'Invalid access token',
    [...MERCHANT_OPERATIONS, 'sandbox'],
    'The bearer token is missing, malformed, expired, forged, or was issued before the client secret was rotated. Get a new one from /access-token.',
  ),
  adminUnauthorized: def(
    401,
    '003',
    'Invalid admin token',
    ['admin', 'sandbox'],
    'The operator endpoints need `Authorization: Bearer <admin token>`. The sandbox endpoints take it too, or a merchant’s own `apikey` + bearer access token (then a wrong token is `invalidToken`).',
  ),
  merchantSuspended: def(
    403,
    '001',
    'Merchant suspended',
    ['access-token', ...MERCHANT_OPERATIONS, 'sandbox'],
    'The operator suspended this merchant; no token is issued and no call is served.',
  ),
  paymentNotFound: def(
    404,
    '001',
    'Payment not found',
    ['get-payment', 'cancel-payment', 'complete-payment', 'callbacks', 'sandbox', 'checkout', 'dashboard'],
    'No payment with this payId exists for this merchant (on the sandbox with the admin token: at all).',
  ),
  cardNotFound: def(
    404,
    '002',
    'Saved card not found',
    ['execute-payment', 'delete-card'],
    'No saved card with this recId exists for this merchant.',
  ),
  merchantNotFound: def(
    404,
    '003',
    'Merchant not found',
    ['admin', 'sandbox'],
    'No merchant with this clientId (on the sandbox with merchant credentials, any clientId but the merchant’s own is answered so too).',
  ),
  routeNotFound: def(404, '004', 'Not found', ['system'], 'No such endpoint.'),
  uriTooLong: def(
    414,
    '001',
    'URI too long',
    ['system'],
    'A path segment is longer than 100 characters; no resource has an id that long.',
  ),
  methodNotAllowed: def(
    405,
    '001',
    'Method not allowed',
    ['system'],
    'The endpoint exists but not with this HTTP method.',
  ),
  idempotencyInProgress: def(
    409,
    '001',
    'Request in progress',
    POST_OPERATIONS,
    'A request with this Idempotency-Key is still being processed; retry after it finishes.',
  ),
  payloadTooLarge: def(413, '001', 'Request body too large', BODY_OPERATIONS, 'Request bodies are limited to 64 KiB.'),
  unsupportedMediaType: def(
    415,
    '001',
    'Unsupported media type',
    BODY_OPERATIONS,
    "Send `application/json` (the access-token endpoint and the checkout's and dashboard's forms take `application/x-www-form-urlencoded`).",
  ),
  idempotencyMismatch: def(
    422,
    '001',
    'Idempotency key reused',
    POST_OPERATIONS,
    'This Idempotency-Key was used within 24 h for a different request body or endpoint.',
  ),
  tooManyRequests: def(
    429,
    '001',
    'Too many requests',
    ALL,
    'Rate limit reached; wait for the number of seconds in `Retry-After`.',
  ),
  internal: def(
    500,
    '001',
    'Internal error',
    ALL,
    'An unexpected error; nothing was changed unless the payment shows otherwise. Logged with the request id.',
  ),
  unavailable: def(
    503,
    '001',
    'Service unavailable',
    ALL,
    'The database cannot be reached right now, or a concurrent change got in the way; nothing was changed: retry shortly (Retry-After).',
  ),

  // access-token
  invalidClientCredentials: def(
    400,
    '001',
    'Invalid client credentials',
    ['access-token'],
    'client_id or client_secret is missing or wrong.',
  ),

  // create-payment rules (each also appears per field in invalidParams).
  amountOutOfRange: def(
    400,
    '010',
    'Amount out of range',
    [...CREATE, 'execute-payment'],
    'The total must be greater than 0 (0 only with saveCard) and at most the configured maximum.',
  ),
  currencyNotEnabled: def(
    400,
    '011',
    'Currency not enabled',
    [...CREATE, 'execute-payment'],
    'The currency is not enabled for this merchant.',
  ),
  methodNotEnabled: def(
    400,
    '012',
    'Payment method not enabled',
    CREATE,
    'A requested method is not enabled for this merchant.',
  ),
  methodRefused: def(
    400,
    '013',
    'Payment method not allowed for this payment',
    CREATE,
    'A requested method cannot be used with this payment: installment outside GEL or in a split payment, Google Pay with preAuth, or with saveCard any method that yields no card that can be saved (only card 5 and Google Pay 14 do).',
  ),
  noMethodAvailable: def(
    400,
    '014',
    'No payment method available',
    CREATE,
    'After applying the merchant settings and the request rules no method is left to offer.',
  ),
  installmentMismatch: def(
    400,
    '015',
    'Installment products do not match the total',
    CREATE,
    'With installment, the products are required and Σ price × quantity must equal the total exactly.',
  ),
  callbackUrlNotRegistered: def(
    400,
    '016',
    'Callback URL not registered',
    [...CREATE, 'sandbox', 'admin', 'dashboard'],
    "The callback URL must be under one of the callback addresses registered for the merchant: the same scheme, host and port, a path equal to the address's or below it on a `/` boundary, and no user name or password.",
  ),
  saveCardNotEnabled: def(
    400,
    '017',
    'Saved cards not enabled',
    CREATE,
    'saveCard was requested but saved cards are not enabled for this merchant.',
  ),
  saveCardDateInPast: def(
    400,
    '018',
    'Save date in the past',
    CREATE,
    'saveCardToDate (MMYY) is before the current month.',
  ),
  splitInvalidIban: def(
    400,
    '019',
    'Invalid split IBAN',
    CREATE,
    '`extra` is not a valid IBAN (ISO 13616 format and mod-97 check digits); the payment is not created.',
  ),
  splitForeignIban: def(
    400,
    '020',
    'Split IBAN not at this bank',
    CREATE,
    '`extra` must be a Georgian IBAN of an account at this bank (KARIBCHE_BANK_CODE).',
  ),
  splitAmountInvalid: def(
    400,
    '021',
    'Invalid split amount',
    [...CREATE, 'execute-payment'],
    '`extra2` must be a decimal amount > 0, not above the total and at most 99% of it.',
  ),
  splitCurrency: def(
    400,
    '022',
    'Split payments are GEL only',
    [...CREATE, 'execute-payment'],
    'A split payment must be in GEL — also every charge of a saved card that carries a split.',
  ),
  splitIncomplete: def(
    400,
    '023',
    'Split needs extra and extra2',
    CREATE,
    'For a merchant enrolled in split, an `extra` shaped like an IBAN makes a split payment, and `extra2` (the amount for it) must come with it.',
  ),
  // Customer actions (checkout page JSON endpoints and the sandbox simulate endpoint).
  notPayable: def(
    400,
    '030',
    'Payment cannot be paid now',
    ['sandbox', 'checkout'],
    'The payment is not waiting for the customer (it is final, expired, or an attempt is still processing).',
    'payment_not_payable',
  ),
  methodNotOffered: def(
    400,
    '031',
    'Method not offered',
    ['sandbox', 'checkout'],
    'This payment does not offer that method.',
    'method_not_offered',
  ),
  bankLoginFailed: def(
    400,
    '032',
    'Internet bank login failed',
    ['sandbox', 'checkout'],
    'Unknown internet-bank user or wrong password (see the README for the test users); no attempt was used.',
    'bank_login_failed',
  ),
  csrfFailed: def(
    403,
    '001',
    'Form expired',
    ['checkout', 'dashboard'],
    "The form's security token is missing or does not match this browser session; reload the page.",
  ),
  nothingToRedeliver: def(
    400,
    '040',
    'Nothing to redeliver',
    ['callbacks'],
    'The payment has no callback yet (it has not reached a final status), or its latest callback is being delivered right now.',
  ),
  // cancel-payment and complete-payment business rejections (resultCode decline_general).
  notCancellable: def(
    400,
    '050',
    'Operation not allowed in this status',
    ['cancel-payment', 'complete-payment'],
    'Cancel needs Succeeded, PartialReturned or WaitingConfirm; completion needs WaitingConfirm.',
    'decline_general',
  ),
  amountNotRefundable: def(
    400,
    '051',
    'Amount not allowed',
    ['cancel-payment', 'complete-payment'],
    'Cancel: 0 < amount ≤ what is still refundable. Completion: 0 < amount ≤ the authorised amount, and at least the split amount.',
    'decline_general',
  ),
  preAuthPartialCancel: def(
    400,
    '052',
    'Partial cancel of a pre-authorisation',
    ['cancel-payment'],
    'A WaitingConfirm payment can only be cancelled in full; complete it with the smaller amount instead and the rest is released.',
    'decline_general',
  ),
  sameDayCancel: def(
    400,
    '053',
    'Already cancelled today',
    ['cancel-payment'],
    'On the day of the transaction a payment can be cancelled once; apply to the bank for the rest, or refund on a later day.',
    'decline_general',
  ),
  splitCancelInvalid: def(
    400,
    '054',
    'Invalid split cancel',
    ['cancel-payment'],
    "`extra` must be the payment's split IBAN and `extra2` the amount taken from it: 0 ≤ extra2 ≤ min(amount, split refundable), amount − extra2 ≤ merchant refundable.",
    'decline_general',
  ),
  acquirerRefused: def(
    400,
    '055',
    'Refused by the acquirer',
    ['cancel-payment', 'complete-payment'],
    'The acquirer refused the operation; `resultCode` says why. Nothing changed.',
    'decline_general',
  ),
  blockExpired: def(
    400,
    '056',
    'Pre-authorisation expired',
    ['cancel-payment', 'complete-payment'],
    'The block window has passed: nothing is left to complete or to void; the payment was or will be returned.',
    'decline_general',
  ),
  operationInProgress: def(
    409,
    '002',
    'Another operation is in progress',
    ['cancel-payment', 'complete-payment'],
    'The payment is being cancelled or completed by another request right now; retry in a moment.',
  ),
  cardNotUsable: def(
    400,
    '060',
    'Saved card not usable',
    ['execute-payment'],
    'The saved card is deleted, not yet active (its pre-authorisation is not completed), or past its save date.',
    'decline_general',
  ),
  apiKeyNotFound: def(
    404,
    '005',
    'API key not found',
    ['api-keys'],
    'No active API key with this id belongs to this merchant (unknown, or already revoked).',
  ),
  lastApiKey: def(
    409,
    '003',
    'Last API key',
    ['api-keys'],
    "The merchant's only active API key cannot be revoked: create a new one first, then revoke this one.",
  ),
  tooManyApiKeys: def(
    409,
    '004',
    'Too many API keys',
    ['api-keys'],
    'A merchant has at most 10 active API keys; revoke one before creating another.',
  ),
  testModeLimit: def(
    400,
    '024',
    'Amount above the test-mode limit',
    [...CREATE, 'execute-payment'],
    'The merchant is in test mode and the total is above its per-payment limit.',
  ),

  // events: the merchant-wide feed of payment status changes and its server-sent-events stream.
  eventCursorInvalid: def(
    400,
    '070',
    'Invalid event cursor',
    ['events'],
    "`after` (or the stream's `Last-Event-ID`) is not an event id this feed returned; pass back an event's `id` or the page's `nextCursor` unchanged, or omit it.",
  ),
  tooManyEventStreams: def(
    429,
    '002',
    'Too many event streams',
    ['events'],
    'A merchant may keep at most 10 event streams open on one gateway process; close one (or reuse one) before opening another.',
  ),
  // Failures on demand (sandbox faults) and the bank profile's limits.
  acquirerError: def(
    502,
    '001',
    'Acquirer error',
    ['cancel-payment', 'complete-payment'],
    'The acquirer failed with a technical error and performed nothing; the payment is as it was. Retry (the same Idempotency-Key may be used) after `Retry-After` seconds.',
  ),
  transactionLimit: def(
    400,
    '070',
    'Amount above the transaction limit',
    [...CREATE, 'execute-payment'],
    "Bank profile: a GEL amount above the merchant's per-transaction limit (default 3,000.00, the bank's standard limit).",
  ),
  resetBusy: def(
    409,
    '006',
    'Payments at the acquirer',
    ['sandbox'],
    'The merchant has payments whose result the acquirer has not given yet (Processing, CancelPaymentProcessing or PaymentCompletionProcessing: a card attempt or its 3-D Secure challenge, a saved-card charge, a refund, a void or a completion). A reset would delete what the acquirer did or is doing for them, so nothing was deleted. Let them finish (a lost answer is settled by the reconciler), then reset again; `Retry-After` says when to try.',
  ),
  conformanceRunNotFound: def(
    404,
    '070',
    'Conformance run not found',
    ['sandbox'],
    'No finished callback conformance run with this id belongs to this merchant.',
  ),
  dailyLimit: def(
    400,
    '071',
    'Daily limit reached',
    [...CREATE, 'execute-payment'],
    "Bank profile: the payment would take the merchant's GEL volume of the business day (KARIBCHE_TIMEZONE) above its daily limit (default 10,000.00). Failed and expired payments give their amount back.",
  ),

  // The merchant dashboard (/dashboard) and its users.
  userExists: def(
    409,
    '005',
    'User already exists',
    ['admin'],
    'A dashboard user with this email exists already (emails are unique across merchants).',
  ),
} as const satisfies Record<string, ErrorDef>;

export type ErrorName = keyof typeof ERRORS;

export function systemCode(op: Operation, err: ErrorDef): string {
  return `${op}.${err.status}.${err.nnn}`;
}

/** For the docs and the consistency test: every (operation, error) pair that can occur. */
export function catalogue(): { op: Operation; name: ErrorName; def: ErrorDef; code: string }[] {
  const rows: { op: Operation; name: ErrorName; def: ErrorDef; code: string }[] = [];
  for (const op of OPERATIONS) {
    for (const [name, d] of Object.entries(ERRORS) as [ErrorName, ErrorDef][]) {
      if (!d.ops.includes(op)) continue;
      // access-token's 400.001 is "invalid client credentials", not the generic validation error.
      if (op === 'access-token' && name === 'invalidRequest') continue;
      rows.push({ op, name, def: d, code: systemCode(op, d) });
    }
  }
  return rows.sort((a, b) =>
    a.op === b.op ? a.code.localeCompare(b.code) : OPERATIONS.indexOf(a.op) - OPERATIONS.indexOf(b.op),
  );
}
