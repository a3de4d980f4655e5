// The shapes of the dashboard's requests: every page's path and query, and every form. A field sent
// twice where one is expected, or nested, fails here and the user gets the dashboard's 400 page.
import { Type } from 'typebox';

const text = Type.Optional(Type.String({ maxLength: 4096 }));

export const PayIdParams = Type.Object({ payId: Type.String() });

/** What any page's address may carry besides its own filters. */
const common = { lang: text, notice: text };

export const PageQuery = Type.Object({ ...common, next: text });

export const PaymentsQuery = Type.Object({
  ...common,
  status: text,
  method: text,
  currency: text,
  from: text,
  to: text,
  minAmount: text,
  maxAmount: text,
  merchantPaymentId: text,
  payId: text,
  cursor: text,
});

export const ProblemsQuery = Type.Object({ ...common, state: text, cursor: text });
export const RequestsQuery = Type.Object({ ...common, status: text, cursor: text });

/** Every field any dashboard form posts; each form reads its own. */
export const DashboardForm = Type.Object({
  csrf: text,
  lang: text,
  // sign-in
  email: text,
  password: text,
  next: text,
  // payment actions
  nonce: text,
  step: text,
  amount: text,
  extra2: text,
  // callbacks
  url: text,
  testUrl: text,
  address: text,
  state: text,
  callbackIds: Type.Optional(
    Type.Union([Type.String({ maxLength: 40 }), Type.Array(Type.String({ maxLength: 40 }), { maxItems: 500 })]),
  ),
  // developers
  keyId: text,
  confirm: text,
  // settings
  name: text,
  logoUrl: Type.Optional(Type.String({ maxLength: 60_000 })),
  brandColor: text,
});
