// The failover test's merchants and customers (Jepsen's bank test, for payments): workers run whole
// payment flows through the load balancer — create (with and without Idempotency-Key), pay, then a
// partial or full refund, a split refund, a completion of a pre-authorisation or a charge of the
// saved card — retrying as a careful merchant does (the same key after a 5xx, a 409, a timeout or a
// lost connection; never a key-less create, whose outcome then stays unknown), and recording every
// answer: what was acknowledged, what never got a final answer, how long each request took.
import { randomUUID } from 'node:crypto';
import { SPLIT_IBAN } from '../../src/testing/harness.ts';
import type { MerchantCredentials } from './load.ts';

export type Flow = 'refund-partial' | 'refund-full' | 'split-refund' | 'completion' | 'saved-card';
export const FLOWS: readonly Flow[] = ['refund-partial', 'refund-full', 'split-refund', 'completion', 'saved-card'];

export type OpKind = 'create' | 'create-unkeyed' | 'pay' | 'refund' | 'completion' | 'execution';

export interface Ack {
  op: OpKind;
  flow: Flow;
  /** The Idempotency-Key (keyed creates use it as the merchantPaymentId too). */
  key: string | null;
  merchantPaymentId?: string;
  payId: string;
  /** For an execution: the saved card it charged. */
  recId?: string;
  answer: Record<string, unknown>;
  at: number;
}

export interface Unknown {
  op: OpKind;
  flow: Flow;
  key: string | null;
  merchantPaymentId?: string;
  payId?: string;
  recId?: string;
  last: string;
}

export interface FailoverRecord {
  acks: Ack[];
  /** Requests that never got a final answer within the retry window (or a key-less create that failed). */
  unknown: Unknown[];
  /** Answers by kind: 2xx, 4xx, 409, 429, 502, 503, 504, other 5xx, timeout, network. */
  outcomes: Record<string, number>;
  /** 5xx other than 502/503/504, error answers that are not problem JSON, 503s without Retry-After. */
  anomalies: string[];
  /** Every successful change (2xx to a POST but a token's): when it was sent and answered, for the time to recover. */
  writes: { sent: number; answered: number; what: string }[];
  /** The first refusals (4xx other than 409/429), to read what the load was told. */
  refusals: string[];
  /** The slowest answer (ms) and how many requests got none within the client's deadline. */
  slowestMs: number;
  requests: number;
}

export const CLIENT_TIMEOUT_MS = 30_000;
const TOTAL = '12.34';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  retryAfter: number | null;
}

export class FailoverLoad {
  readonly record: FailoverRecord = {
    acks: [],
    unknown: [],
    outcomes: {},
    anomalies: [],
    writes: [],
    refusals: [],
    slowestMs: 0,
    requests: 0,
  };
  private stopped = false;
  private token: string | null = null;

  constructor(
    private readonly base: string,
    private readonly adminToken: string,
    private readonly merchant: MerchantCredentials,
    private readonly callbackUrl: string,
    /** How long a keyed request is retried before it counts as unknown (past the key lock of 60 s). */
    private readonly retryForMs = 150_000,
  ) {}

  async run(workers: number): Promise<void> {
    await Promise.all(Array.from({ length: workers }, (_, w) => this.loop(w)));
  }

  stop(): void {
    this.stopped = true;
  }

  private async loop(worker: number): Promise<void> {
    for (let i = 0; !this.stopped; i++) {
      const flow = FLOWS[(worker + i) % FLOWS.length]!;
      // One create in four of the full-refund flow goes without a key: the merchant who sends none.
      await this.flow(flow, flow === 'refund-full' && i % 4 === 0);
    }
  }

  private async flow(flow: Flow, unkeyed: boolean): Promise<void> {
    const merchantPaymentId = randomUUID();
    const body = {
      amount: { currency: 'GEL', total: TOTAL },
      returnurl: 'https://shop.example/return',
      callbackUrl: this.callbackUrl,
      merchantPaymentId,
      ...(flow === 'split-refund' ? { extra: SPLIT_IBAN, extra2: '4.00' } : {}),
      ...(flow === 'completion' ? { preAuth: true } : {}),
      ...(flow === 'saved-card' ? { saveCard: true } : {}),
    };
    const op: OpKind = unkeyed ? 'create-unkeyed' : 'create';
    const created = unkeyed
      ? await this.unkeyedCreate(body)
      : await this.untilFinal('POST', '/v1/gateway/payments', body, merchantPaymentId);
    if (created?.status !== 200) {
      if (!created || created.status >= 500 || created.status === 409)
        this.record.unknown.push({
          op,
          flow,
          key: unkeyed ? null : merchantPaymentId,
          merchantPaymentId,
          last: describe(created),
        });
      return;
    }
    const payId = String(created.body.payId);
    this.ack({ op, flow, key: unkeyed ? null : merchantPaymentId, merchantPaymentId, payId, answer: created.body });
    if (this.stopped) return;

    const paid = await this.pay(payId, flow);
    if (!paid || this.stopped) return;
    const key = randomUUID();
    if (flow === 'refund-partial' || flow === 'refund-full' || flow === 'split-refund') {
      const refund =
        flow === 'refund-partial'
          ? { amount: '2.00' }
          : flow === 'split-refund'
            ? { amount: '3.00', extra: SPLIT_IBAN, extra2: '1.00' }
            : {};
      await this.keyed('refund', flow, payId, key, 'POST', `/v1/gateway/payments/${payId}/cancel`, refund);
    } else if (flow === 'completion') {
      await this.keyed('completion', flow, payId, key, 'POST', `/v1/gateway/payments/${payId}/completion`, {
        amount: '10.00',
      });
    } else {
      const recId = await this.savedCard(payId);
      if (!recId) return;
      const charged = await this.untilFinal(
        'POST',
        '/v1/gateway/payments/execution',
        { recId, money: { amount: '1.00', currency: 'GEL' }, initiator: 'merchant' },
        key,
      );
      if (charged?.status === 200)
        this.ack({ op: 'execution', flow, key, payId: String(charged.body.payId), recId, answer: charged.body });
      else if (!charged || charged.status >= 500 || charged.status === 409)
        this.record.unknown.push({ op: 'execution', flow, key, recId, last: describe(charged) });
    }
  }

  /**
   * A create without a key is sent once: after a 5xx or no answer its outcome stays unknown (the
   * merchant would look it up by merchantPaymentId before creating anew). Only a refusal that
   * proves nothing ran (no token, an expired one: 401) is sent again.
   */
  private async unkeyedCreate(body: unknown): Promise<Answer | null> {
    for (let i = 0; i < 3; i++) {
      const headers = await this.merchantHeaders();
      const res = headers ? await this.once('POST', '/v1/gateway/payments', body, headers) : null;
      if (res?.status !== 401) return res;
      this.token = null;
    }
    return null;
  }

  /** Pays as the customer would (the sandbox's simulate), then reads the payment until it settled. */
  private async pay(payId: string, flow: Flow): Promise<boolean> {
    const end = Date.now() + this.retryForMs;
    while (Date.now() < end) {
      const res = await this.once(
        'POST',
        `/sandbox/v1/payments/${payId}/simulate`,
        { method: 5, card: '4111111111111111' },
        { authorization: `Bearer ${this.adminToken}` },
      );
      if (res?.status === 200) {
        this.ack({ op: 'pay', flow, key: null, payId, answer: res.body });
        return res.body.status === 'Succeeded' || res.body.status === 'WaitingConfirm';
      }
      // Paid by an attempt whose answer was lost, or still being paid: read what happened.
      const got = await this.untilFinal('GET', `/v1/gateway/payments/${payId}`, undefined, null);
      const status = got?.body.status;
      if (status === 'Succeeded' || status === 'WaitingConfirm') return true;
      if (status !== 'Created' && status !== 'Processing') return false;
      await sleep(250);
    }
    return false;
  }

  private async savedCard(payId: string): Promise<string | null> {
    const got = await this.untilFinal('GET', `/v1/gateway/payments/${payId}`, undefined, null);
    const card = got?.body.recurringCard as { recId?: string } | undefined;
    return card?.recId ?? null;
  }

  private async keyed(
    op: OpKind,
    flow: Flow,
    payId: string,
    key: string,
    method: string,
    path: string,
    body: unknown,
  ): Promise<void> {
    const res = await this.untilFinal(method, path, body, key);
    if (res?.status === 200) this.ack({ op, flow, key, payId, answer: res.body });
    else if (!res || res.status >= 500 || res.status === 409)
      this.record.unknown.push({ op, flow, key, payId, last: describe(res) });
  }

  private ack(a: Omit<Ack, 'at'>): void {
    this.record.acks.push({ ...a, at: Date.now() });
  }

  /** A merchant request repeated with its key (or a read) until an answer that is final. */
  private async untilFinal(method: string, path: string, body: unknown, key: string | null): Promise<Answer | null> {
    const end = Date.now() + this.retryForMs;
    let last: Answer | null = null;
    while (Date.now() < end) {
      const headers = await this.merchantHeaders();
      last = headers
        ? await this.once(method, path, body, { ...headers, ...(key ? { 'idempotency-key': key } : {}) })
        : null;
      if (last?.status === 401) this.token = null;
      else if (last && last.status < 500 && last.status !== 409 && last.status !== 429) return last;
      await sleep(Math.min(2_000, Math.max(200, (last?.retryAfter ?? 0) * 1_000)));
    }
    return last;
  }

  private async merchantHeaders(): Promise<Record<string, string> | null> {
    if (!this.token) {
      const res = await this.once(
        'POST',
        '/v1/gateway/access-token',
        { client_id: this.merchant.clientId, client_secret: this.merchant.clientSecret },
        { apikey: this.merchant.apiKey },
      );
      if (res?.status !== 200) return null;
      this.token = String(res.body.access_token);
    }
    return { apikey: this.merchant.apiKey, authorization: `Bearer ${this.token}` };
  }

  /** One request through the load balancer; null when no answer came within the client's deadline. */
  private async once(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer | null> {
    const r = this.record;
    r.requests++;
    const started = Date.now();
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      const text = await res.text();
      r.slowestMs = Math.max(r.slowestMs, Date.now() - started);
      const kind = [409, 429, 502, 503, 504].includes(res.status)
        ? String(res.status)
        : res.status >= 500
          ? 'other 5xx'
          : `${Math.floor(res.status / 100)}xx`;
      r.outcomes[kind] = (r.outcomes[kind] ?? 0) + 1;
      const problem = res.headers.get('content-type')?.startsWith('application/problem+json');
      if (res.status >= 400 && !problem)
        r.anomalies.push(`${res.status} ${method} ${path}: not problem JSON: ${text.slice(0, 200)}`);
      if (res.status >= 500 && ![502, 503, 504].includes(res.status))
        r.anomalies.push(`${res.status} ${method} ${path}: ${text.slice(0, 300)}`);
      const retryAfter = res.headers.get('retry-after');
      if (res.status === 503 && retryAfter === null)
        r.anomalies.push(`503 ${method} ${path} without Retry-After: ${text.slice(0, 200)}`);
      if (res.status < 300 && method === 'POST' && !path.endsWith('/access-token'))
        r.writes.push({ sent: started, answered: Date.now(), what: `${method} ${path}` }); // a token is signed, not stored
      if (res.status >= 400 && res.status < 500 && res.status !== 409 && res.status !== 429 && r.refusals.length < 20)
        r.refusals.push(`${res.status} ${method} ${path}: ${text.slice(0, 200)}`);
      return {
        status: res.status,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        retryAfter: retryAfter === null ? null : Number(retryAfter),
      };
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      r.outcomes[timedOut ? 'timeout' : 'network'] = (r.outcomes[timedOut ? 'timeout' : 'network'] ?? 0) + 1;
      if (timedOut) r.slowestMs = Math.max(r.slowestMs, Date.now() - started);
      return null;
    }
  }
}

function describe(a: Answer | null): string {
  return a ? `${a.status} ${JSON.stringify(a.body).slice(0, 200)}` : 'no answer';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
