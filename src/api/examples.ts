// Example values for the route schemas (`examples` in the OpenAPI document): the API reference, the
// Postman collection and the SDK's docs show them. They are real answers of the sandbox, copied
// from a run; a test sends each example request to a gateway and checks that the answer has the
// example response's shape (src/docs/examples.test.ts).

export const PAY_ID = '690c61a9d0a118bfbc2af63054cd695f';
export const REC_ID = '820fd16506d22e6b9bc11ccf2ca7ee79';
export const CLIENT_ID = 'kc531d423b861d20dbe98d';
export const CLIENT_SECRET = 'kbs_d66nyKURfUcXvIlEj199Pw58sU7dBBBewkJYUmne53c';
/**
 * The callback endpoint of the quick start (docs/guides/samples/callback.mjs on port 3000): the demo
 * merchant has 127.0.0.1:* registered, so a create with this callbackUrl runs as pasted.
 */
export const CALLBACK_URL = 'http://127.0.0.1:3000/callbacks';
const BASE = 'http://127.0.0.1:8080';

const links = (payId: string) => [
  { uri: `${BASE}/v1/gateway/payments/${payId}`, method: 'GET', rel: 'self' },
  { uri: `${BASE}/checkout/${payId}`, method: 'REDIRECT', rel: 'approval_url' },
];
const messages = { httpStatusCode: 200, developerMessage: null, userMessage: null };

export const EXAMPLES = {
  accessTokenBody: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
  accessTokenResponse: {
    access_token:
      'eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJzdWIiOiJrYzUzMWQ0MjNiODYxZDIwZGJlOThkIn0.laqyTPRwxeoXDJiOnzIjLXFyV1BRxrwZVzZXvcfc-9k',
    token_type: 'Bearer',
    expires_in: 86400,
  },
  createPaymentBody: {
    amount: { currency: 'GEL', total: '25.40' },
    returnurl: 'https://shop.example/return',
    description: 'Order 1004',
    merchantPaymentId: 'order-1004',
    callbackUrl: CALLBACK_URL,
    language: 'EN',
  },
  createPaymentResponse: {
    payId: PAY_ID,
    status: 'Created',
    currency: 'GEL',
    amount: 25.4,
    confirmedAmount: 0,
    links: links(PAY_ID),
    transactionId: null,
    recId: null,
    preAuth: false,
    expirationMinutes: 12,
    ...messages,
  },
  payment: {
    payId: PAY_ID,
    status: 'Succeeded',
    currency: 'GEL',
    amount: 25.4,
    confirmedAmount: 25.4,
    returnedAmount: 0,
    links: links(PAY_ID),
    transactionId: 'sim_3c5f28b86ec853f6',
    paymentMethod: 5,
    rrn: '737831753351',
    resultCode: 'approved',
    preAuth: false,
    preAuthExpiresAt: null,
    initiator: 'client',
    recurringCard: null,
    paymentCardNumber: '411111******1111',
    merchantPaymentId: 'order-1004',
    extra: null,
    extra2: null,
    split: null,
    expiresAt: '2026-11-24T21:45:37.465Z',
    createdAt: '2026-11-24T21:33:37.465Z',
    updatedAt: '2026-11-24T21:33:37.585Z',
    ...messages,
  },
  cancelBody: { amount: '5.00' },
  cancelResponse: { status: 'PartialReturned', amount: 5, returnedAmount: 5, ...messages },
  completionBody: { amount: '80.00' },
  completionResponse: { status: 'Succeeded', amount: 80, confirmedAmount: 80, ...messages },
  executionBody: { recId: REC_ID, money: { amount: '12.50', currency: 'GEL' }, merchantPaymentId: 'sub-2026-11' },
  deletedResponse: { ...messages },
  createMerchantBody: {
    name: 'Corner Shop',
    currencies: ['GEL', 'USD'],
    methods: [4, 5, 7],
    callbackUrlPrefixes: ['https://shop.example/callbacks'],
    defaultCallbackUrl: 'https://shop.example/callbacks/karibche',
  },
  merchant: {
    clientId: CLIENT_ID,
    name: 'Corner Shop',
    status: 'active',
    currencies: ['GEL', 'USD'],
    methods: [4, 5, 7],
    splitEnrolled: false,
    saveCardEnabled: false,
    defaultCallbackUrl: 'https://shop.example/callbacks/karibche',
    callbackUrlPrefixes: ['https://shop.example/callbacks'],
    testMode: false,
    testAmountLimit: 100,
    profile: 'karibche',
    transactionLimit: 3000,
    dailyLimit: 10000,
    brandColor: null,
    logoUrl: null,
    createdAt: '2026-11-24T22:33:38.363Z',
    updatedAt: '2026-11-24T22:33:38.363Z',
  },
  merchantSettingsBody: { methods: [4, 5, 7], saveCardEnabled: true, brandColor: '#0b5cad' },
  credentials: {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    apiKey: 'kbk_ELTi4mwL67WnKLL-n1EcXkTfI7dZgW8l',
    callbackSecret: 'whsec_wnpBqxVis42Dw7bcbWwD/cEg9svs9SjDzRYcjs6rygE=',
  },
  simulateBody: { method: 5, card: '4111111111111111' },
  clock: { now: '2026-11-24T21:33:38.353Z', offsetSeconds: 0 },
  advanceClockBody: { advanceSeconds: 3600 },
  advancedClock: { now: '2026-11-24T22:33:38.362Z', offsetSeconds: 3600, expired: 0 },
  testCallbackBody: { clientId: CLIENT_ID, url: CALLBACK_URL },
  merchantClock: {
    now: '2026-11-26T21:33:38.353Z',
    offsetSeconds: 172800,
    clientId: CLIENT_ID,
    merchantOffsetSeconds: 172800,
  },
  resetBody: { clientId: CLIENT_ID },
  redeliverBody: { state: 'failed' },
  faultBody: { operation: 'refund', outcome: 'lost', times: 2 },
  reset: { clientId: CLIENT_ID, deleted: { payments: 12, savedCards: 1, callbacks: 9, requests: 40, faults: 0 } },
};

/**
 * The Idempotency-Key each example request shows, by operation: one key per operation (a key used
 * again with another request is refused, 422), and none the guides use (the README's try takes
 * order-1001, the quick start order-1002).
 */
export const IDEMPOTENCY_KEYS: Record<string, string> = {
  'create-payment': 'order-1004',
  'cancel-payment': 'refund-1004-1',
  'complete-payment': 'capture-1004',
  'execute-payment': 'sub-2026-11',
};
