// JSON schemas of the merchant API. They check shapes (types), feed the OpenAPI document, and tell
// lenient binding the canonical property names; the request types of the routes are derived from
// them (TypeBox `Static` through the type provider). Value rules live in payments/rules/.
import { Type } from 'typebox';
import { EXAMPLES } from './examples.ts';
import { checkoutMethods, methodName } from '../payments/methods.ts';

/** Amounts arrive as JSON numbers or decimal strings ("10", "10.50"). */
export const Decimal = Type.Union([Type.Number(), Type.String()], {
  description: 'Amount: a number or a decimal string, at most two decimals',
});

const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.String(),
    systemCode: Type.String(),
    detail: Type.String(),
    resultCode: Type.Optional(Type.String()),
    invalidParams: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), reason: Type.String(), systemCode: Type.Optional(Type.String()) })),
    ),
    requestId: Type.Optional(Type.String()),
  },
  { $id: 'Problem', description: 'Problem JSON (application/problem+json); see /docs/errors' },
);
export const ProblemSchema = Problem;

export const errorResponses = {
  '4xx': Type.Ref('Problem'),
  '5xx': Type.Ref('Problem'),
};

export const Headers = Type.Object({
  apikey: Type.Optional(Type.String({ description: 'API key of the merchant' })),
  authorization: Type.Optional(Type.String({ description: 'Bearer <access token>' })),
});
export const PostHeaders = Type.Object({
  apikey: Type.Optional(Type.String({ description: 'API key of the merchant' })),
  authorization: Type.Optional(Type.String({ description: 'Bearer <access token>' })),
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Up to 255 characters; same key and body within 24 h replays the stored response' }),
  ),
});

export const AccessTokenBody = Type.Object(
  {
    client_id: Type.String({ description: 'The merchant’s client id' }),
    client_secret: Type.String({ description: 'The merchant’s client secret' }),
  },
  { examples: [EXAMPLES.accessTokenBody] },
);
export const AccessTokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
  },
  { examples: [EXAMPLES.accessTokenResponse] },
);

export const CreatePaymentBody = Type.Object(
  {
    amount: Type.Object({
      currency: Type.String({ description: 'GEL, USD or EUR (enabled for the merchant)' }),
      total: Type.Optional(Decimal),
      subtotal: Type.Optional(Decimal),
      tax: Type.Optional(Decimal),
      shipping: Type.Optional(Decimal),
    }),
    returnurl: Type.String({ description: 'Absolute http(s) URL the customer returns to' }),
    extra: Type.Optional(Type.String({ description: 'Standard: ANSI text ≤ 25. Split: destination IBAN' })),
    extra2: Type.Optional(
      Type.Union([Type.String(), Type.Number()], {
        description: 'Standard: ANSI text ≤ 52. Split: amount for the IBAN',
      }),
    ),
    userIpAddress: Type.Optional(Type.String()),
    expirationMinutes: Type.Optional(Type.Integer({ description: '1–1440, default 12' })),
    methods: Type.Optional(
      Type.Array(Type.Integer(), {
        description: `Method codes: ${checkoutMethods()
          .map((m) => `${m} ${methodName(m)}`)
          .join(', ')}`,
      }),
    ),
    installmentProducts: Type.Optional(
      Type.Array(Type.Object({ name: Type.Optional(Type.String()), price: Decimal, quantity: Type.Integer() })),
    ),
    callbackUrl: Type.Optional(Type.String()),
    preAuth: Type.Optional(Type.Boolean()),
    language: Type.Optional(Type.String({ description: 'KA (default) or EN' })),
    merchantPaymentId: Type.Optional(Type.String()),
    skipInfoMessage: Type.Optional(Type.Boolean()),
    saveCard: Type.Optional(Type.Boolean()),
    saveCardToDate: Type.Optional(Type.String({ description: 'MMYY' })),
    description: Type.Optional(Type.String({ description: '≤ 30 characters' })),
  },
  { examples: [EXAMPLES.createPaymentBody] },
);

const Link = Type.Object({ uri: Type.String(), method: Type.String(), rel: Type.String() });
const Messages = {
  httpStatusCode: Type.Integer(),
  developerMessage: Type.Union([Type.String(), Type.Null()]),
  userMessage: Type.Union([Type.String(), Type.Null()]),
};
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const CreatePaymentResponse = Type.Object(
  {
    payId: Type.String(),
    status: Type.String(),
    currency: Type.String(),
    amount: Type.Number(),
    confirmedAmount: Type.Number(),
    links: Type.Array(Link),
    transactionId: NullableString,
    recId: NullableString,
    preAuth: Type.Boolean(),
    expirationMinutes: Type.Integer(),
    ...Messages,
  },
  { examples: [EXAMPLES.createPaymentResponse] },
);

export const PaymentResponse = Type.Object(
  {
    payId: Type.String(),
    status: Type.String(),
    currency: Type.String(),
    amount: Type.Number(),
    confirmedAmount: Type.Number(),
    returnedAmount: Type.Number(),
    links: Type.Array(Link),
    transactionId: NullableString,
    paymentMethod: Type.Union([Type.Integer(), Type.Null()]),
    rrn: NullableString,
    resultCode: NullableString,
    preAuth: Type.Boolean(),
    preAuthExpiresAt: NullableString,
    initiator: Type.String(),
    recurringCard: Type.Union([
      Type.Object({ recId: Type.String(), cardMask: NullableString, expiryDate: NullableString }),
      Type.Null(),
    ]),
    paymentCardNumber: NullableString,
    merchantPaymentId: NullableString,
    extra: NullableString,
    extra2: NullableString,
    split: Type.Union([
      Type.Object({ iban: Type.String(), amount: Type.Number(), returnedAmount: Type.Number() }),
      Type.Null(),
    ]),
    expiresAt: Type.String(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    ...Messages,
  },
  { examples: [EXAMPLES.payment] },
);

export const PayIdParams = Type.Object({ payId: Type.String() });

export const CancelBody = Type.Object(
  {
    amount: Type.Optional(Decimal),
    extra: Type.Optional(Type.String({ description: 'Split payments: the split IBAN' })),
    extra2: Type.Optional(
      Type.Union([Type.String(), Type.Number()], { description: 'Split payments: the amount taken from that IBAN' }),
    ),
  },
  { examples: [EXAMPLES.cancelBody] },
);
export const CancelResponse = Type.Object(
  {
    status: Type.String(),
    amount: Type.Number(),
    returnedAmount: Type.Number(),
    httpStatusCode: Type.Integer(),
    developerMessage: Type.Union([Type.String(), Type.Null()]),
    userMessage: Type.Union([Type.String(), Type.Null()]),
  },
  { examples: [EXAMPLES.cancelResponse] },
);
export const CompletionBody = Type.Object({ amount: Decimal }, { examples: [EXAMPLES.completionBody] });
export const CompletionResponse = Type.Object(
  {
    status: Type.String(),
    amount: Type.Number(),
    confirmedAmount: Type.Number(),
    httpStatusCode: Type.Integer(),
    developerMessage: Type.Union([Type.String(), Type.Null()]),
    userMessage: Type.Union([Type.String(), Type.Null()]),
  },
  { examples: [EXAMPLES.completionResponse] },
);
export const ExecutionBody = Type.Object(
  {
    recId: Type.String(),
    money: Type.Object({ amount: Decimal, currency: Type.String() }),
    preAuth: Type.Optional(Type.Boolean()),
    initiator: Type.Optional(Type.String({ description: 'client (default) or merchant' })),
    merchantPaymentId: Type.Optional(Type.String()),
    extra: Type.Optional(Type.String()),
    extra2: Type.Optional(Type.Union([Type.String(), Type.Number()])),
  },
  { examples: [EXAMPLES.executionBody] },
);
export const RecIdParams = Type.Object({ recId: Type.String() });
export const DeletedResponse = Type.Object(
  {
    httpStatusCode: Type.Integer(),
    developerMessage: Type.Union([Type.String(), Type.Null()]),
    userMessage: Type.Union([Type.String(), Type.Null()]),
  },
  { examples: [EXAMPLES.deletedResponse] },
);
