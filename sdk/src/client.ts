// `new Karibche({ baseUrl, apiKey, clientId, clientSecret })`: the merchant API of a Karibche
// gateway, or of the bank itself with product 'tpay' (the paths are the same under /v1/tpay).
import { verifyCallback, type HeaderBag, type VerifiedCallback, type VerifyOptions } from './callbacks.ts';
import { Events } from './events.ts';
import { Transport, type Request, type SecretSource } from './transport.ts';
import type {
  CancelRequest,
  CancelResponse,
  CompletionRequest,
  CompletionResponse,
  CreatePaymentRequest,
  CreatePaymentResponse,
  DeleteCardResponse,
  ExecutionRequest,
  Payment,
  PaymentList,
  PaymentListQuery,
  PostOptions,
} from './types.ts';

export interface KaribcheOptions {
  /** e.g. http://127.0.0.1:8080 (a Karibche gateway) or https://api.tbcbank.ge (the bank). */
  baseUrl: string;
  apiKey: string;
  clientId: string;
  /**
   * The client secret, or a function returning the current one: it is read at every token fetch,
   * so after a rotation the next 401 fetches a token with the new secret.
   */
  clientSecret: SecretSource;
  /** The path segment after /v1/ (default 'gateway'; 'tpay' for the bank or Karibche's alias). */
  product?: 'gateway' | 'tpay';
  /** Whether the server honours Idempotency-Key (default true; set false for the bank). */
  serverIdempotency?: boolean;
  /** Retries after the first try (default 3). */
  maxRetries?: number;
  /** First backoff in ms (default 250); doubles per retry, with jitter. */
  retryBaseMs?: number;
  /** Longest wait between tries in ms, Retry-After included (default 10 000). */
  maxRetryDelayMs?: number;
  /** Per try, in ms (default 30 000). */
  timeoutMs?: number;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

const enc = encodeURIComponent;

class Payments {
  constructor(private readonly t: Transport) {}

  create(body: CreatePaymentRequest, options: PostOptions = {}): Promise<CreatePaymentResponse> {
    return this.t.request({ method: 'POST', path: this.t.product('/payments'), body, ...options });
  }

  get(payId: string, options: { signal?: AbortSignal } = {}): Promise<Payment> {
    return this.t.request({ method: 'GET', path: this.t.product(`/payments/${enc(payId)}`), ...options });
  }

  /** Search (Karibche extension): newest first; pass nextCursor back as `cursor`. */
  list(query: PaymentListQuery = {}, options: { signal?: AbortSignal } = {}): Promise<PaymentList> {
    return this.t.request({ method: 'GET', path: this.t.product('/payments'), query, ...options });
  }

  /** Refund (amount omitted: everything refundable) or void a pre-authorisation. */
  cancel(payId: string, body: CancelRequest = {}, options: PostOptions = {}): Promise<CancelResponse> {
    return this.t.request({ method: 'POST', path: this.t.product(`/payments/${enc(payId)}/cancel`), body, ...options });
  }

  /** Capture a pre-authorised payment (amount ≤ the authorised amount). */
  complete(payId: string, body: CompletionRequest, options: PostOptions = {}): Promise<CompletionResponse> {
    return this.t.request({
      method: 'POST',
      path: this.t.product(`/payments/${enc(payId)}/completion`),
      body,
      ...options,
    });
  }

  /** Charge a saved card. */
  execute(body: ExecutionRequest, options: PostOptions = {}): Promise<Payment> {
    return this.t.request({ method: 'POST', path: this.t.product('/payments/execution'), body, ...options });
  }
}

class Cards {
  constructor(private readonly t: Transport) {}

  /** Delete a saved card (the bank's documented POST form; the bank answers an empty 200). */
  delete(recId: string, options: PostOptions = {}): Promise<DeleteCardResponse | undefined> {
    return this.t.request({ method: 'POST', path: this.t.product(`/payments/${enc(recId)}/delete`), ...options });
  }
}

class Callbacks {
  /**
   * Checks a callback's signature (X-Callback-Signature or Standard Webhooks) against the raw
   * body, as received, with the merchant's callbackSecret (or both secrets during a rotation);
   * throws SignatureError when it does not hold. Returns the payment to look up.
   */
  verify(
    headers: HeaderBag,
    rawBody: string | Buffer,
    secret: string | string[],
    options?: VerifyOptions,
  ): VerifiedCallback {
    return verifyCallback(headers, rawBody, secret, options);
  }
}

export class Karibche {
  readonly payments: Payments;
  readonly cards: Cards;
  readonly events: Events;
  readonly callbacks = new Callbacks();
  private readonly transport: Transport;

  constructor(options: KaribcheOptions) {
    for (const k of ['baseUrl', 'apiKey', 'clientId', 'clientSecret'] as const) {
      if (!options[k]) throw new TypeError(`Karibche: ${k} is required`);
    }
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      product: options.product ?? 'gateway',
      serverIdempotency: options.serverIdempotency ?? true,
      maxRetries: options.maxRetries ?? 3,
      retryBaseMs: options.retryBaseMs ?? 250,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: options.fetch ?? globalThis.fetch,
    });
    this.payments = new Payments(this.transport);
    this.cards = new Cards(this.transport);
    this.events = new Events(this.transport);
  }

  /**
   * Any other call with the same authentication, retries and errors, by absolute path (e.g. the
   * request log, or a sandbox tool). `product` builds /v1/<product><path>.
   */
  request<T = unknown>(r: Request): Promise<T> {
    return this.transport.request<T>(r);
  }

  product(path: string): string {
    return this.transport.product(path);
  }
}
