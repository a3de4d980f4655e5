// The request and response types of the SDK, named from the generated OpenAPI types (schema.d.ts):
// a change of the gateway's schemas changes them, nothing here is copied by hand.
import type { paths } from './schema.d.ts';

type Ok<Op> = Op extends { responses: { 200: { content: infer C } } }
  ? C extends { 'application/json': infer J }
    ? J
    : never
  : never;
type Body<Op> = Op extends { requestBody?: infer B }
  ? NonNullable<B> extends { content: { 'application/json': infer J } }
    ? J
    : never
  : never;
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type Payments = paths['/v1/gateway/payments'];
type OnePayment = paths['/v1/gateway/payments/{payId}'];

export type CreatePaymentRequest = Body<Payments['post']>;
export type CreatePaymentResponse = Ok<Payments['post']>;
export type Payment = Ok<OnePayment['get']>;
export type PaymentListQuery = Query<Payments['get']>;
export type PaymentList = Ok<Payments['get']>;
export type CancelRequest = Body<paths['/v1/gateway/payments/{payId}/cancel']['post']>;
export type CancelResponse = Ok<paths['/v1/gateway/payments/{payId}/cancel']['post']>;
export type CompletionRequest = Body<paths['/v1/gateway/payments/{payId}/completion']['post']>;
export type CompletionResponse = Ok<paths['/v1/gateway/payments/{payId}/completion']['post']>;
export type ExecutionRequest = Body<paths['/v1/gateway/payments/execution']['post']>;
export type DeleteCardResponse = Ok<paths['/v1/gateway/payments/{recId}/delete']['post']>;
export type EventListQuery = Query<paths['/v1/gateway/events']['get']>;
export type EventPage = Ok<paths['/v1/gateway/events']['get']>;
export type PaymentEvent = EventPage['items'][number];
export type RequestLogQuery = Query<paths['/v1/gateway/requests']['get']>;
export type RequestLogPage = Ok<paths['/v1/gateway/requests']['get']>;
export type SimulateRequest = Body<paths['/sandbox/v1/payments/{payId}/simulate']['post']>;

/** Options of a POST: the Idempotency-Key to send (one is generated when absent). */
export interface PostOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}
