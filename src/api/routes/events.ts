// The merchant-wide events feed (Karibche extension): every status change of the merchant's
// payments, read page by page (GET /events?after=) or followed live (GET /events/stream, SSE).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import { callbackId } from '../../callbacks/ids.ts';
import { ERRORS } from '../../errors/catalogue.ts';
import { gatewayError } from '../../errors/gateway-error.ts';
import { MAX_EVENTS_PAGE, feedTail, listEvents, positionFrom, positionOf, type FeedRow } from '../../feed/feed.ts';
import { MAX_STREAMS_PER_MERCHANT, type EventHub } from '../../feed/hub.ts';
import { FEED_START, formatPosition } from '../../feed/position.ts';
import { toJsonAmount } from '../../payments/money.ts';
import type { Services } from '../../services.ts';
import { merchantAuth } from '../auth.ts';
import { serveEventStream } from '../event-stream.ts';
import { Headers, errorResponses } from '../schemas.ts';
import { apiSecurityHeaders } from '../security-headers.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
export const PaymentEvent = Type.Object({
  id: Type.String({
    description: 'Position in the feed (opaque): pass it back as `after`, or as Last-Event-ID to the stream',
  }),
  payId: Type.String(),
  merchantPaymentId: NullableString,
  sequence: Type.Integer({ description: 'Per payment, from 1 (the X-Callback-Sequence of a callback)' }),
  status: Type.String(),
  previousStatus: Type.String(),
  final: Type.Boolean({ description: 'A final status: a callback is sent for it' }),
  resultCode: NullableString,
  currency: Type.String(),
  amount: Type.Number(),
  confirmedAmount: Type.Number({ description: 'At the time of the change' }),
  returnedAmount: Type.Number({ description: 'At the time of the change' }),
  callbackId: Type.Union([Type.String(), Type.Null()], {
    description: 'The X-Callback-Id of its callback (final statuses), else null',
  }),
  createdAt: Type.String(),
});
const EventPage = Type.Object({
  items: Type.Array(PaymentEvent),
  nextCursor: Type.String({
    description: 'Pass as `after` for the next page; the same cursor when nothing new has happened',
  }),
  hasMore: Type.Boolean({ description: 'More events are ready now' }),
});

export function eventView(r: FeedRow) {
  return {
    id: formatPosition(positionOf(r)),
    payId: r.pay_id,
    merchantPaymentId: r.merchant_payment_id,
    sequence: r.seq,
    status: r.status,
    previousStatus: r.previous_status,
    final: r.final,
    resultCode: r.result_code,
    currency: r.currency,
    amount: toJsonAmount(r.amount),
    confirmedAmount: toJsonAmount(r.confirmed_amount ?? 0),
    returnedAmount: toJsonAmount(r.returned_amount ?? 0),
    callbackId: r.final ? callbackId(r.id) : null,
    createdAt: r.created_at.toISOString(),
  };
}

export function eventRoutes(scope: FastifyInstance, s: Services, hub: EventHub, hide: boolean): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = merchantAuth(s.merchants, s.tokens);
  const tags = ['Events'];
  const headers = apiSecurityHeaders(s.config.mode);

  app.get(
    '/events',
    {
      onRequest: authenticate,
      config: { operation: 'events' as const },
      schema: {
        hide,
        summary: 'Payment status changes, merchant-wide (Karibche extension)',
        description: `Every status change of the merchant's payments in one order that never skips an event, oldest first, at most ${MAX_EVENTS_PAGE} a page. Omit \`after\` to start from the first event; poll with \`nextCursor\`.`,
        tags,
        headers: Headers,
        querystring: Type.Object({
          after: Type.Optional(Type.String({ description: 'An event id or nextCursor' })),
          limit: Type.Optional(Type.String({ description: `Page size, 1–${MAX_EVENTS_PAGE} (default 100)` })),
        }),
        response: { 200: EventPage, ...errorResponses },
      },
    },
    async (request) => {
      const page = await listEvents(s.db, request.merchant.clientId, request.query);
      return { items: page.items.map(eventView), nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
  );

  app.get(
    '/events/stream',
    {
      onRequest: authenticate,
      config: { operation: 'events' as const },
      schema: {
        hide,
        summary: 'Follow payment status changes live (server-sent events)',
        description:
          'A `text/event-stream`: each status change is one event whose `id` is the event id and whose `data` is the event JSON of GET /events. Starts after `Last-Event-ID` (what an EventSource sends when it reconnects), else after `after`, else at the latest event (only new changes). Comment lines keep the connection alive; the stream ends when the gateway stops (the client reconnects) and when the credentials that opened it no longer hold — the access token expired, the API key revoked, the client secret rotated, the merchant suspended — checked at every keep-alive (the client then needs new credentials).',
        tags,
        headers: Type.Object({
          ...Headers.properties,
          'last-event-id': Type.Optional(Type.String({ description: 'Resume after this event id' })),
        }),
        querystring: Type.Object({ after: Type.Optional(Type.String({ description: 'An event id or nextCursor' })) }),
        response: {
          200: {
            description: 'Server-sent events',
            content: {
              'text/event-stream': {
                schema: Type.String({ description: 'id: <event id>\\ndata: <event JSON>\\n\\n per status change' }),
              },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const clientId = request.merchant.clientId;
      const resume = request.headers['last-event-id'];
      const from =
        positionFrom(typeof resume === 'string' ? resume : undefined, 'Last-Event-ID') ??
        positionFrom(request.query.after, 'after') ??
        (await feedTail(s.db, clientId)) ??
        FEED_START;
      if (hub.count(clientId) >= MAX_STREAMS_PER_MERCHANT) {
        throw gatewayError(ERRORS.tooManyEventStreams, {
          detail: `At most ${MAX_STREAMS_PER_MERCHANT} event streams per merchant and gateway process`,
          retryAfterSeconds: 5,
        });
      }
      const stillAuthorised = () =>
        authenticate(request).then(
          () => true,
          () => false,
        );
      await serveEventStream(
        {
          db: s.db,
          hub,
          log: request.log as unknown as Logger,
          keepAliveMs: s.config.eventStreamKeepAliveMs,
          headers,
          stillAuthorised,
        },
        request,
        reply,
        clientId,
        from,
        eventView,
      );
      return reply;
    },
  );
}
