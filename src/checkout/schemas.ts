// The shapes of the checkout's requests: every page's path and query, and every form. A field sent
// twice, or nested, fails here and the customer gets the checkout's error page (400), never a 5xx.
import { Type } from 'typebox';

const text = Type.Optional(Type.String({ maxLength: 4096 }));

export const PaymentParams = Type.Object({ payId: Type.String() });
export const BankAppParams = Type.Object({ payId: Type.String(), token: Type.String() });

/** What a page's address may carry (anything else is ignored). */
export const PageQuery = Type.Object({ lang: text, method: text, notice: text, term: text, sent: text });

/** Every field any checkout form posts; each form reads its own. */
export const CheckoutForm = Type.Object({
  csrf: text,
  lang: text,
  method: text,
  number: text,
  expiry: text,
  securityCode: text,
  holder: text,
  username: text,
  password: text,
  outcome: text,
  term: text,
  action: text,
  code: text,
});
