// POST /sandbox/v1/payments/{payId}/simulate: act as the customer without a browser, through the
// same attempt code path as the checkout page.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ERRORS } from '../api/errors.ts';
import { problem } from '../api/problem.ts';
import { PaymentResponse, errorResponses } from '../api/schemas.ts';
import { adminAuth } from '../admin/auth.ts';
import { bankLogin } from '../checkout/bank-login.ts';
import { checkCardInput } from '../payments/card.ts';
import { MethodNotOffered, NotPayable, UnknownPayment, answerChallenge, attemptPayment, type AttemptDetails } from '../payments/attempt.ts';
import { isWellFormedId } from '../payments/ids.ts';
import { selectPaymentById } from '../payments/store.ts';
import { paymentLinks, paymentView } from '../payments/view.ts';
import { yearMonthIn } from '../payments/text.ts';
import type { Services } from '../services.ts';

const Body = Type.Object({
  method: Type.Optional(Type.Integer({ description: '5 card, 4 QR, 7 bank login, 8 installment, 9 Apple Pay, 14 Google Pay' })),
  card: Type.Optional(Type.String()),
  expiry: Type.Optional(Type.String({ description: 'MM/YY; default 12/30' })),
  cvc: Type.Optional(Type.String({ description: 'default 123' })),
  holder: Type.Optional(Type.String({ description: 'default SANDBOX CUSTOMER' })),
  otp: Type.Optional(Type.String({ description: '3-D Secure code (1234 passes)' })),
  outcome: Type.Optional(Type.Union([Type.Literal('approve'), Type.Literal('decline')])),
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
});
type BodyT = { method?: number; card?: string; expiry?: string; cvc?: string; holder?: string; otp?: string; outcome?: 'approve' | 'decline'; username?: string; password?: string };

const CARD_FIELDS = { number: 'card', expiry: 'expiry', securityCode: 'cvc', holder: 'holder' } as const;

export function simulateRoute(app: FastifyInstance, s: Services): void {
  app.post(
    '/payments/:payId/simulate',
    {
      onRequest: adminAuth(s.config, s.db),
      config: { operation: 'sandbox' },
      schema: {
        summary: 'Pay as the customer would',
        description:
          'Same code path as the checkout page. `{"method":5,"card":"4111111111111111"}`, `{"method":5,"card":"4000000000003220","otp":"1234"}`, `{"method":7,"outcome":"approve"}`, or `{"otp":"1234"}` to answer a pending 3-D Secure challenge. Answers the payment.',
        tags: ['Sandbox'],
        params: Type.Object({ payId: Type.String() }),
        body: Body,
        response: { 200: PaymentResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { payId } = request.params as { payId: string };
      const body = request.body as BodyT;
      if (!isWellFormedId(payId)) throw problem(ERRORS.paymentNotFound);
      try {
        let row;
        // An otp alone answers the pending challenge; anything else is a new attempt (which locks
        // and checks the payment itself, so no read first).
        const current = body.otp !== undefined && body.card === undefined && body.method === undefined ? await selectPaymentById(s.db, payId) : null;
        if (current?.status === 'Processing' && current.challenge_id) {
          row = await answerChallenge(s, current, body.otp!);
        } else {
          row = await attemptPayment(s, payId, details(s, body));
          if (row.status === 'Processing' && row.challenge_id && body.otp !== undefined) row = await answerChallenge(s, row, body.otp);
        }
        return paymentView(row, paymentLinks(s.config.publicUrl, '/v1/gateway', payId));
      } catch (err) {
        if (err instanceof UnknownPayment) throw problem(ERRORS.paymentNotFound);
        if (err instanceof NotPayable) throw problem(ERRORS.notPayable, { detail: `The payment is ${err.payment.status}` });
        if (err instanceof MethodNotOffered) throw problem(ERRORS.methodNotOffered, { detail: err.message });
        throw err;
      }
    },
  );
}

function details(s: Services, body: BodyT): AttemptDetails {
  const method = body.method ?? 5;
  if (method === 5) {
    const checked = checkCardInput(
      { number: body.card ?? '', expiry: body.expiry ?? '12/30', securityCode: body.cvc ?? '123', holder: body.holder ?? 'SANDBOX CUSTOMER' },
      yearMonthIn(s.clock.now(), s.config.timeZone),
    );
    if (!checked.ok) {
      const invalidParams = Object.entries(checked.problems).map(([field, code]) => ({ name: CARD_FIELDS[field as keyof typeof CARD_FIELDS], reason: code! }));
      throw problem(ERRORS.invalidRequest, { detail: `Invalid card: ${invalidParams.map((p) => `${p.name} ${p.reason}`).join(', ')}`, invalidParams });
    }
    return { method: 5, card: checked.card };
  }
  if (method === 7 && body.username !== undefined) {
    const user = bankLogin(body.username, body.password ?? '');
    if (!user) throw problem(ERRORS.bankLoginFailed);
    return { method: 7, outcome: user.outcome, declineCode: user.declineCode };
  }
  if (![4, 7, 8, 9, 14].includes(method)) {
    throw problem(ERRORS.invalidRequest, { detail: 'method must be 4, 5, 7, 8, 9 or 14', invalidParams: [{ name: 'method', reason: 'must be 4, 5, 7, 8, 9 or 14' }] });
  }
  return { method: method as 4 | 7 | 8 | 9 | 14, outcome: body.outcome ?? 'approve' };
}
