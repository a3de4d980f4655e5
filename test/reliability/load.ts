// Mixed merchant + customer load for the reliability suites: create (Idempotency-Key), pay through
// the sandbox simulate endpoint, refund in full (Idempotency-Key), retrying each request the way a
// careful client does when the gateway is killed or the database is gone, and recording what the
// client was told so the suites can check it against the database afterwards.
import { randomUUID } from 'node:crypto';

export interface MerchantCredentials {
  clientId: string;
  clientSecret: string;
  apiKey: string;
}

export interface Acknowledged {
  key: string;
  payId: string;
}

export interface LoadRecord {
  /** Creates answered 2xx: Idempotency-Key (also the merchantPaymentId) → payId. */
  creates: Acknowledged[];
  /** Creates never answered 2xx (the process died or the database was away every time). */
  unansweredCreates: string[];
  /** Refunds answered 2xx. */
  refunds: Acknowledged[];
  requests: number;
  /** Answers by status class ("2xx", "4xx", "503", …) and failures to get any answer ("network"). */
  outcomes: Record<string, number>;
  /** Bodies of any 5xx other than 503, and of any answer that was not problem JSON on an error. */
  anomalies: string[];
}

// Cards the load pays with: approve, decline, and the one whose authorisation never answers (left in
// Processing for the reconciler).
const CARDS = ['4111111111111111', '4111111111111111', '4111111111111111', '4000000000000002', '4000000000000770'];

export class MixedLoad {
  readonly record: LoadRecord = {
    creates: [],
    unansweredCreates: [],
    refunds: [],
    requests: 0,
    outcomes: {},
    anomalies: [],
  };
  private stopped = false;
  private token: string | null = null;
  private n = 0;

  constructor(
    /** Base URLs of the gateway processes; requests go round-robin over them. */
    private readonly bases: string[],
    private readonly adminToken: string,
    private readonly merchant: MerchantCredentials,
    private readonly callbackUrl: string,
    /** How long a request is retried before it counts as unanswered. */
    private readonly retryForMs = 15_000,
  ) {}

  /** Runs `workers` loops until stop(); resolves when they have all finished. */
  async run(workers: number): Promise<void> {
    await Promise.all(Array.from({ length: workers }, (_, i) => this.loop(i)));
  }

  stop(): void {
    this.stopped = true;
  }

  private base(): string {
    return this.bases[this.n++ % this.bases.length]!;
  }

  private async loop(worker: number): Promise<void> {
    let i = 0;
    while (!this.stopped) {
      const card = CARDS[(worker + i++) % CARDS.length]!;
      const payId = await this.create();
      if (!payId || this.stopped) continue;
      const paid = await this.send('POST', `/sandbox/v1/payments/${payId}/simulate`, { card }, this.adminHeaders());
      if (paid?.status === 200 && (paid.body as { status?: string }).status === 'Succeeded') await this.refund(payId);
    }
  }

  private async create(): Promise<string | null> {
    const key = randomUUID();
    const body = {
      amount: { currency: 'GEL', total: 12.34 },
      returnurl: 'https://shop.example/return',
      callbackUrl: this.callbackUrl,
      merchantPaymentId: key,
    };
    const res = await this.untilAnswered('POST', '/v1/gateway/payments', body, key);
    if (res?.status === 200) {
      const payId = (res.body as { payId: string }).payId;
      this.record.creates.push({ key, payId });
      return payId;
    }
    this.record.unansweredCreates.push(key);
    return null;
  }

  private async refund(payId: string): Promise<void> {
    const key = randomUUID();
    const res = await this.untilAnswered('POST', `/v1/gateway/payments/${payId}/cancel`, {}, key);
    if (res?.status === 200) this.record.refunds.push({ key, payId });
  }

  /** Repeats a merchant request with its Idempotency-Key until a final answer (not 5xx/409/network). */
  private async untilAnswered(
    method: string,
    path: string,
    body: unknown,
    key: string,
  ): Promise<{ status: number; body: unknown } | null> {
    const end = Date.now() + this.retryForMs;
    while (Date.now() < end) {
      const headers = await this.merchantHeaders();
      const res = headers ? await this.send(method, path, body, { ...headers, 'idempotency-key': key }) : null;
      if (res && res.status === 401) this.token = null;
      else if (res && res.status < 500 && res.status !== 409) return res;
      if (this.stopped && !res) return null;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  }

  private adminHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.adminToken}` };
  }

  private async merchantHeaders(): Promise<Record<string, string> | null> {
    if (!this.token) {
      const res = await this.send(
        'POST',
        '/v1/gateway/access-token',
        { client_id: this.merchant.clientId, client_secret: this.merchant.clientSecret },
        { apikey: this.merchant.apiKey },
      );
      if (res?.status !== 200) return null;
      this.token = (res.body as { access_token: string }).access_token;
    }
    return { apikey: this.merchant.apiKey, authorization: `Bearer ${this.token}` };
  }

  /** One request; null when no answer came (connection refused or reset, or 5 s without an answer). */
  async send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: unknown } | null> {
    this.record.requests++;
    try {
      const res = await fetch(`${this.base()}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(5_000),
      });
      const text = await res.text();
      const cls =
        res.status === 503 || res.status === 429 || res.status === 409
          ? String(res.status)
          : `${Math.floor(res.status / 100)}xx`;
      this.record.outcomes[cls] = (this.record.outcomes[cls] ?? 0) + 1;
      if (res.status >= 400 && !res.headers.get('content-type')?.startsWith('application/problem+json'))
        this.record.anomalies.push(`${res.status} ${path}: not problem JSON: ${text.slice(0, 200)}`);
      if (res.status >= 500 && res.status !== 503)
        this.record.anomalies.push(`${res.status} ${path}: ${text.slice(0, 300)}`);
      return { status: res.status, body: text ? JSON.parse(text) : null };
    } catch {
      this.record.outcomes.network = (this.record.outcomes.network ?? 0) + 1;
      return null;
    }
  }
}

/**
 * The environment of a gateway process under a reliability suite: one worker, a reconciler that
 * looks at Processing after 1 s, callbacks polled every 200 ms (besides notifications).
 */
export function suiteGatewayEnv(
  databaseUrl: string,
  dataDir: string,
  port: number,
  adminToken: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    KARIBCHE_DATA_DIR: dataDir,
    PORT: String(port),
    KARIBCHE_ADMIN_TOKEN: adminToken,
    KARIBCHE_WORKERS: '1',
    KARIBCHE_RECONCILE_AFTER_SECONDS: '1',
    KARIBCHE_CALLBACK_POLL_MS: '200',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Creates a merchant through the operator API of a running gateway. */
export async function createMerchantOver(
  base: string,
  adminToken: string,
  settings: Record<string, unknown> = { callbackUrlPrefixes: ['http://127.0.0.1:*'] },
): Promise<MerchantCredentials> {
  const res = await fetch(`${base}/admin/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Reliability Shop', ...settings }),
  });
  if (res.status !== 201) throw new Error(`merchant: ${res.status} ${await res.text()}`);
  return (await res.json()).credentials;
}
