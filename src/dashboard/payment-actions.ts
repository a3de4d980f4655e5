// Refund, Complete and Void from the dashboard. They call the API's use cases — cancelPayment and
// completePayment with the requests checkCancelRequest / checkCompletionRequest make of the form —
// so the rules and the refusals are the API's, word for word. Each form carries a nonce made when
// the form was shown: the confirmation runs in a keyed unit of work under that nonce (as the API
// runs under an Idempotency-Key), so a double submit, a reload of the answer or two tabs posting
// the same form perform the operation once.
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { ERRORS } from '../errors/catalogue.ts';
import { GatewayError, gatewayError } from '../errors/gateway-error.ts';
import { requestHash, runOnce, type Once } from '../idempotency/once.ts';
import { cancelPayment, completePayment, type OperationOutcome } from '../payments/cancel-and-complete.ts';
import type { PaymentRow } from '../payments/row.ts';
import { checkCancelRequest, checkCompletionRequest, type CancelRequest } from '../payments/rules/cancel.ts';
import { merchantPaymentRow } from '../payments/get-payment.ts';
import { forRequest } from '../services.ts';
import {
  accountOf,
  checkCsrf,
  DASHBOARD_OPERATION,
  problemOf,
  requireSession,
  sendPage,
  startPage,
  viewOf,
  type Dashboard,
} from './http.ts';
import { DashboardForm, PayIdParams, PageQuery } from './schemas.ts';
import { actionPage, confirmPage, fullAmount, initialForm, type ActionForm } from './views/actions.ts';
import type { Action } from './views/payment.ts';

const ACTIONS: readonly Action[] = ['refund', 'complete', 'void'];
const NONCE = /^[0-9a-f]{32}$/;
const newNonce = () => randomBytes(16).toString('hex');

/** The merchant-API operation each action is (its systemCodes, and the key's operation for the reconciler). */
const OPERATION = { refund: 'cancel-payment', void: 'cancel-payment', complete: 'complete-payment' } as const;

/** The request the API would have been sent: what the use case gets, and what the nonce's key hashes. */
function apiRequest(
  action: Action,
  row: PaymentRow,
  form: ActionForm,
): { body: Record<string, string>; checked: () => CancelRequest | number } {
  const given = (s: string | undefined) => (s === undefined || s.trim() === '' ? undefined : s.trim());
  if (action === 'complete') {
    const body = { amount: form.amount?.trim() ?? '' };
    return { body, checked: () => checkCompletionRequest(body) };
  }
  const body: Record<string, string> = {};
  const amount = action === 'refund' ? given(form.amount) : undefined;
  if (amount !== undefined) body.amount = amount;
  if (row.split_iban) body.extra = row.split_iban;
  const extra2 = row.split_iban ? given(form.extra2) : undefined;
  if (extra2 !== undefined) body.extra2 = extra2;
  // The button pressed says which cancel is meant (planCancel refuses the other under the lock).
  return { body, checked: () => ({ ...checkCancelRequest(body), expect: action === 'void' ? 'void' : 'refund' }) };
}

/** Waits out a first submit of the same form still running (a double click), then answers as it did. */
async function settled<R>(run: () => Promise<Once<R>>, waitMs: number): Promise<Once<R>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof GatewayError && err.def === ERRORS.idempotencyInProgress) || Date.now() > deadline)
        throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export function paymentActions(scope: FastifyInstance, d: Dashboard): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const s = d.s;
  const page = { config: DASHBOARD_OPERATION, onRequest: [startPage(d), requireSession(d)] };

  function paymentOf(request: FastifyRequest, payId: string): Promise<PaymentRow> {
    return merchantPaymentRow(s.db, accountOf(request).merchant.clientId, payId);
  }

  for (const action of ACTIONS) {
    const path = `/dashboard/payments/:payId/${action}`;
    const home = (payId: string) => `/dashboard/payments/${payId}/${action}`;

    app.get(
      path,
      { ...page, schema: { hide: true, params: PayIdParams, querystring: PageQuery } },
      async (request, reply) => {
        const row = await paymentOf(request, request.params.payId);
        return sendPage(reply, actionPage(viewOf(d, request), action, row, initialForm(action, row), newNonce()));
      },
    );

    app.post(
      path,
      { ...page, preHandler: checkCsrf, schema: { hide: true, params: PayIdParams, body: DashboardForm } },
      async (request, reply) =>
        submit(request, reply, action, request.params.payId, request.body, home(request.params.payId)),
    );
  }

  async function submit(
    request: FastifyRequest,
    reply: FastifyReply,
    action: Action,
    payId: string,
    form: Static<typeof DashboardForm>,
    home: string,
  ) {
    if (typeof form.nonce !== 'string' || !NONCE.test(form.nonce)) throw gatewayError(ERRORS.csrfFailed);
    const nonce = form.nonce;
    const row = await paymentOf(request, payId);
    const typed: ActionForm = { amount: form.amount, extra2: form.extra2 };
    const v = viewOf(d, request, home);
    const operation = OPERATION[action];
    const refused = (err: GatewayError) =>
      sendPage(
        reply,
        actionPage(v, action, row, typed, newNonce(), problemOf(d, operation, err, String(request.id))),
        err.def.status,
      );
    const { body, checked } = apiRequest(action, row, typed);
    try {
      const req = checked();
      if (form.step !== 'confirm') {
        const amount = typeof req === 'number' ? req : (req.amount ?? fullAmount(action, row));
        const split = typeof req === 'number' ? null : req.splitAmount;
        return sendPage(reply, confirmPage(v, action, row, typed, amount, split, nonce));
      }
      const clientId = accountOf(request).merchant.clientId;
      const key = {
        clientId,
        key: `dashboard:${nonce}`,
        operation,
        requestHash: requestHash(operation, { payId }, body),
      };
      const deps = forRequest(s, request, clientId);
      await settled(
        () =>
          runOnce<OperationOutcome>({ ...s, log: request.log }, key, (uow) =>
            typeof req === 'number'
              ? completePayment(deps, clientId, payId, req, uow)
              : cancelPayment(deps, clientId, payId, req, uow),
          ),
        s.config.operationWaitMs,
      );
      request.log.info({ event: 'dashboard.payment_action', action, payId, clientId }, 'dashboard payment action');
      return reply.redirect(`/dashboard/payments/${payId}?notice=${action}-done`, 303);
    } catch (err) {
      if (!(err instanceof GatewayError) || err.def === ERRORS.paymentNotFound || err.def === ERRORS.csrfFailed)
        throw err;
      // The nonce of a form posted again with other values: a stale or altered form, not a rule.
      if (err.def === ERRORS.idempotencyMismatch) throw gatewayError(ERRORS.csrfFailed);
      return refused(err);
    }
  }
}
