// Payment pages: the list (listPayments, the search the API's GET /payments runs, with the same
// rules and messages), its CSV export, one payment's detail and the redelivery of its latest
// callback (redeliverLatest, as POST /payments/{payId}/callbacks/redeliver).
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { redeliverLatest } from '../callbacks/redelivery.ts';
import { unkeyed } from '../idempotency/unit-of-work.ts';
import { businessDay, startOfBusinessDay } from '../payments/business-day.ts';
import { getPayment } from '../payments/get-payment.ts';
import { returnable } from '../payments/rules/cancel.ts';
import type { OperationWindow } from '../payments/rules/window.ts';
import { parseIsoInstant } from '../payments/rules/fields.ts';
import { listPaymentRows, parsePaymentQuery, type PaymentQuery } from '../payments/search-payments.ts';
import { paymentRecord } from '../payments/payment-record.ts';
import { forRequest } from '../services.ts';
import {
  accountOf,
  checkCsrf,
  DASHBOARD_OPERATION,
  noticeFrom,
  orRefusal,
  problemOf,
  requireSession,
  sendPage,
  startPage,
  viewOf,
  type Dashboard,
} from './http.ts';
import { paymentsCsv } from './csv.ts';
import { DashboardForm, PayIdParams, PaymentsQuery } from './schemas.ts';
import { paymentPage, type Action, type PaymentState } from './views/payment.ts';
import { FILTERS, paymentsPage, type Filters } from './views/payments.ts';
import type { PaymentRow } from '../payments/row.ts';

export const PAGE_SIZE = 25;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The filters as typed, empty ones dropped. */
function filtersOf(q: Static<typeof PaymentsQuery>): Filters {
  const f: Filters = {};
  for (const k of FILTERS) if (q[k]?.trim()) f[k] = q[k]!.trim();
  return f;
}

/**
 * The search the filters ask for. A date picked in the form is a calendar day in the gateway's
 * time zone, and "to" includes its day; anything else is passed on as typed, so that the search
 * refuses it with the API's own message.
 */
function searchOf(f: Filters, timeZone: string): PaymentQuery {
  const day = (d: string | undefined, after = false) =>
    d && DAY.test(d) && parseIsoInstant(d) ? startOfBusinessDay(after ? nextDay(d) : d, timeZone).toISOString() : d;
  return { ...f, from: day(f.from), to: day(f.to, true) };
}

/** What can be done with the payment now: the window the use cases check (rules/window.ts), and something left to return. */
export function allowedActions(row: PaymentRow, window: OperationWindow): Action[] {
  const open: Action[] = [];
  if (!window.complete) open.push('complete');
  if (!window.void) open.push('void');
  if (!window.refund && returnable(row).total > 0) open.push('refund');
  return open;
}

const NOTICES = {
  'refund-done': 'refundDone',
  'complete-done': 'completeDone',
  'void-done': 'voidDone',
  redelivered: 'redelivered',
} as const;

export function paymentPages(scope: FastifyInstance, d: Dashboard): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const s = d.s;
  const page = { config: DASHBOARD_OPERATION, onRequest: [startPage(d), requireSession(d)] };

  app.get(
    '/dashboard/payments',
    { ...page, schema: { hide: true, querystring: PaymentsQuery } },
    async (request, reply) => {
      const filters = filtersOf(request.query);
      const cursor = request.query.cursor || undefined;
      const v = viewOf(d, request);
      return orRefusal(
        async () => {
          const found = await listPaymentRows(s, accountOf(request).merchant.clientId, {
            ...searchOf(filters, s.config.timeZone),
            limit: PAGE_SIZE,
            cursor,
          });
          return sendPage(
            reply,
            paymentsPage(v, { filters, items: found.rows, nextCursor: found.nextCursor, paged: !!cursor }),
          );
        },
        (err) =>
          sendPage(
            reply,
            paymentsPage(v, {
              filters,
              items: [],
              nextCursor: null,
              paged: false,
              problem: problemOf(d, 'list-payments', err),
            }),
            err.def.status,
          ),
      );
    },
  );

  app.get(
    '/dashboard/payments/export.csv',
    { ...page, schema: { hide: true, querystring: PaymentsQuery } },
    async (request, reply) => {
      const filters = filtersOf(request.query);
      const query = searchOf(filters, s.config.timeZone);
      return orRefusal(
        async () => {
          parsePaymentQuery(query); // a bad filter is the list page's message, before any byte of the file
          const day = businessDay(s.clock.forMerchant(accountOf(request).merchant.clientId).now(), s.config.timeZone);
          return reply
            .type('text/csv; charset=utf-8')
            .header('Content-Disposition', `attachment; filename="payments-${day}.csv"`)
            .send(Readable.from(paymentsCsv(s, accountOf(request).merchant.clientId, query)));
        },
        (err) =>
          sendPage(
            reply,
            paymentsPage(viewOf(d, request), {
              filters,
              items: [],
              nextCursor: null,
              paged: false,
              problem: problemOf(d, 'list-payments', err),
            }),
            err.def.status,
          ),
      );
    },
  );

  /** The payment's page, with a notice or a refusal above it. Its offer is decided on the merchant's clock, as the API decides (issue 26). */
  async function showPayment(
    request: FastifyRequest,
    reply: FastifyReply,
    payId: string,
    extra: Pick<PaymentState, 'notice' | 'problem'> = {},
    status = 200,
  ) {
    const clientId = accountOf(request).merchant.clientId;
    const p = await getPayment(forRequest(s, request, clientId), clientId, payId);
    const { window, ...record } = (await paymentRecord(s, clientId, payId, () =>
      forRequest(s, request, clientId).clock.now(),
    ))!;
    const state: PaymentState = { p, ...record, actions: allowedActions(record.row, window), ...extra };
    return sendPage(reply, paymentPage(viewOf(d, request, `/dashboard/payments/${payId}`), state), status);
  }

  app.get(
    '/dashboard/payments/:payId',
    { ...page, schema: { hide: true, params: PayIdParams, querystring: PaymentsQuery } },
    async (request, reply) =>
      showPayment(request, reply, request.params.payId, { notice: noticeFrom(request, request.dashboard!.t, NOTICES) }),
  );

  app.post(
    '/dashboard/payments/:payId/redeliver',
    { ...page, preHandler: checkCsrf, schema: { hide: true, params: PayIdParams, body: DashboardForm } },
    async (request, reply) => {
      const { payId } = request.params;
      return orRefusal(
        async () => {
          await redeliverLatest(s, accountOf(request).merchant, payId, unkeyed(s.db));
          s.callbacks.nudge();
          return reply.redirect(`/dashboard/payments/${payId}?notice=redelivered`, 303);
        },
        (err) => showPayment(request, reply, payId, { problem: problemOf(d, 'callbacks', err) }, err.def.status),
      );
    },
  );
}
