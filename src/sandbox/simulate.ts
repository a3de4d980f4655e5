// POST /sandbox/v1/payments/{payId}/simulate: act as the customer without a browser, through the
// same rules (customer-choice.ts) and the same attempt code path as the checkout page.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { EXAMPLES } from '../api/examples.ts';
import { PaymentResponse, errorResponses } from '../api/schemas.ts';
import { paymentLinks, paymentView } from '../api/views.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidField, invalidFields } from '../errors/gateway-error.ts';
import { answerChallenge, attemptPayment } from '../payments/attempt.ts';
import { checkChoice } from '../payments/customer-choice.ts';
import { allMethods, methodOf } from '../payments/methods/index.ts';
import { challengeCode } from '../payments/rules/customer.ts';
import { paymentDetails } from '../payments/details.ts';
import { paymentById } from '../payments/get-payment.ts';
import { STATUS } from '../payments/state-machine.ts';
import { yearMonthIn } from '../payments/text.ts';
import { forRequest, type Services } from '../services.ts';
import { mayActOn, type sandboxAuth } from './auth.ts';

/** The methods a customer pays with, as a list for people: "4, 5, 6 or 7". */
const orList = (items: (string | number)[]) =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : String(items[0] ?? '');
const chosenMethods = () => allMethods().filter((m) => m.traits.checkout);

const Body = Type.Object(
  {
    method: Type.Optional(
      Type.Integer({
        description: `Default 5 (card). ${chosenMethods()
          .map((m) => `${m.code} ${m.name}`)
          .join(', ')}`,
      }),
    ),
    card: Type.Optional(Type.String()),
    expiry: Type.Optional(Type.String({ description: 'MM/YY; default 12/30' })),
    cvc: Type.Optional(Type.String({ description: 'default 123' })),
    holder: Type.Optional(Type.String({ description: 'default SANDBOX CUSTOMER' })),
    otp: Type.Optional(Type.String({ description: '3-D Secure code (1234 passes)' })),
    outcome: Type.Optional(Type.Union([Type.Literal('approve'), Type.Literal('decline')])),
    later: Type.Optional(
      Type.Boolean({
        description: `${orList(
          chosenMethods()
            .filter((m) => m.traits.delayable)
            .map((m) => `${m.name} (${m.code})`),
        )}: the bank answers 5 minutes of sandbox time later; the payment stays Processing until then`,
      }),
    ),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String()),
  },
  { examples: [EXAMPLES.simulateBody] },
);

/** The simulate body's names for the card form's fields. */
const CARD_FIELDS = { number: 'card', expiry: 'expiry', securityCode: 'cvc', holder: 'holder' } as const;

export function simulateRoute(scope: FastifyInstance, s: Services, auth: ReturnType<typeof sandboxAuth>): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/payments/:payId/simulate',
    {
      onRequest: auth,
      config: { operation: 'sandbox' },
      schema: {
        summary: 'Pay as the customer would',
        description:
          'Same code path as the checkout page. `{"method":5,"card":"4111111111111111"}`, `{"method":5,"card":"4000000000003220","otp":"1234"}`, `{"method":7,"username":"demo","password":"demo"}`, `{"method":7,"outcome":"approve"}`, `{"method":6,"outcome":"decline"}` (not enough points), `{"method":4,"outcome":"approve","later":true}`, or `{"otp":"1234"}` to answer a pending 3-D Secure challenge. Answers the payment. With merchant credentials only the merchant’s own payments (another’s is 404, as an unknown one), on the merchant’s own clock.',
        tags: ['Sandbox'],
        params: Type.Object({ payId: Type.String() }),
        body: Body,
        response: { 200: PaymentResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { payId } = request.params;
      const body = request.body;
      // Whose payment it is decides whose clock it runs on, and whether this caller may touch it.
      const current = await paymentById(s.reads, payId);
      if (!current || !mayActOn(request, current.client_id)) throw gatewayError(ERRORS.paymentNotFound);
      const rs = forRequest(s, request, current.client_id);
      // An otp alone answers the pending challenge; anything else is a new attempt (which locks and
      // checks the payment itself).
      const otpOnly = body.otp !== undefined && body.card === undefined && body.method === undefined;
      let row: Awaited<ReturnType<typeof attemptPayment>>;
      if (otpOnly && current.status === STATUS.processing && current.challenge_id) {
        row = await answerChallenge(rs, current, challengeCode(body.otp));
      } else {
        row = await attemptPayment(rs, payId, attemptOf(rs, body));
        if (row.status === STATUS.processing && row.challenge_id && body.otp !== undefined)
          row = await answerChallenge(rs, row, challengeCode(body.otp));
      }
      return paymentView(await paymentDetails(s.db, row), paymentLinks(s.config.publicUrl, '/v1/gateway', payId));
    },
  );
}

function attemptOf(
  s: Services,
  body: {
    method?: number;
    card?: string;
    expiry?: string;
    cvc?: string;
    holder?: string;
    outcome?: 'approve' | 'decline';
    later?: boolean;
    username?: string;
    password?: string;
  },
) {
  const method = body.method ?? 5;
  // Every field the body has, for the method's module to read its own (with the sandbox's defaults).
  const input = {
    card: {
      number: body.card ?? '',
      expiry: body.expiry ?? '12/30',
      securityCode: body.cvc ?? '123',
      holder: body.holder ?? 'SANDBOX CUSTOMER',
    },
    ...(body.username !== undefined ? { login: { username: body.username, password: body.password ?? '' } } : {}),
    outcome: body.outcome ?? 'approve',
    later: body.later === true,
  };
  const checked = checkChoice(
    methodOf(method)?.traits.checkout ? method : -1,
    input,
    yearMonthIn(s.clock.now(), s.config.timeZone),
  );
  if (checked.ok) return checked.details;
  if ('cardProblems' in checked) {
    throw invalidFields(
      Object.entries(checked.cardProblems).map(([field, code]) => ({
        field: CARD_FIELDS[field as keyof typeof CARD_FIELDS],
        reason: code!,
        rule: ERRORS.invalidRequest,
      })),
    );
  }
  if ('loginFailed' in checked) throw gatewayError(ERRORS.bankLoginFailed);
  const delayable = chosenMethods().filter((m) => m.traits.delayable);
  if ('notDelayable' in checked)
    throw invalidField(
      'later',
      `is only for ${delayable.map((m) => `method ${m.code} (${m.name})`).join(' and ')}; use a slow bank user for the login form`,
    );
  throw invalidField('method', `must be ${orList(chosenMethods().map((m) => m.code))}`);
}
