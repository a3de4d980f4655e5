// HTTP for the SDK: the access token (fetched, cached until shortly before it expires, fetched
// again once when a call answers 401, e.g. after the client secret was rotated), an
// Idempotency-Key on every POST, and retries with backoff that reuse that key.
import { randomUUID } from 'node:crypto';
import { KaribcheError, type Problem } from './errors.ts';

/** A secret, or a function that reads the current one (so a rotated secret is picked up). */
export type SecretSource = string | (() => string | Promise<string>);

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  clientId: string;
  clientSecret: SecretSource;
  /** The path segment after /v1/: `gateway` (Karibche) or `tpay` (the bank, or Karibche's alias). */
  product: string;
  /**
   * The server honours Idempotency-Key (Karibche does; the bank ignores it). When true, POSTs are
   * retried on 409 (in progress), 503 and network errors too; when false only on 429, since a
   * repeated POST to a server without idempotency could act twice.
   */
  serverIdempotency: boolean;
  maxRetries: number;
  /** First backoff; doubles per retry (with jitter) up to maxRetryDelayMs. */
  retryBaseMs: number;
  maxRetryDelayMs: number;
  timeoutMs: number;
  fetch: typeof fetch;
}

export interface Request {
  method: 'GET' | 'POST' | 'DELETE';
  /** Absolute path on the base URL (see Transport.product for the product's own paths). */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** POST only; generated when not given. The same key is sent on every retry. */
  idempotencyKey?: string;
  /** Send apikey + bearer token (default true). */
  auth?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The refresh margin: a token this close to its expiry is not used for a new call. */
const EXPIRY_MARGIN_MS = 30_000;

export class Transport {
  private token: { value: string; expiresAt: number } | null = null;
  private fetching: Promise<string> | null = null;

  constructor(readonly o: TransportOptions) {}

  /** A path of the product's API: product('/payments') is /v1/<product>/payments. */
  product(path: string): string {
    return `/v1/${this.o.product}${path}`;
  }

  url(path: string, query?: Request['query']): string {
    const url = new URL(this.o.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  /** A valid access token: the cached one, or a new one (one fetch at a time). */
  async accessToken(renew = false): Promise<string> {
    if (!renew && this.token && this.token.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return this.token.value;
    this.fetching ??= this.fetchToken().finally(() => (this.fetching = null));
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    const secret = typeof this.o.clientSecret === 'function' ? await this.o.clientSecret() : this.o.clientSecret;
    const body = new URLSearchParams({ client_id: this.o.clientId, client_secret: secret }).toString();
    const answer = await this.send(
      { method: 'POST', path: this.product('/access-token'), auth: false },
      { apikey: this.o.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    );
    const t = answer as { access_token?: string; expires_in?: number };
    if (!t?.access_token)
      throw new KaribcheError(200, {
        title: 'Unexpected token answer',
        detail: 'The access-token answer has no access_token',
      });
    this.token = { value: t.access_token, expiresAt: Date.now() + (t.expires_in ?? 300) * 1000 };
    return t.access_token;
  }

  /** Authenticated headers of a call; for the event stream, which reads its own response. */
  async authHeaders(renew = false): Promise<Record<string, string>> {
    return { apikey: this.o.apiKey, authorization: `Bearer ${await this.accessToken(renew)}` };
  }

  /** Sends a request with retries; resolves to the parsed JSON answer (undefined when empty). */
  async request<T>(r: Request): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...r.headers };
    let body: string | undefined;
    if (r.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(r.body);
    }
    if (r.method === 'POST') headers['idempotency-key'] = r.idempotencyKey ?? randomUUID();
    return (await this.send(r, headers, body)) as T;
  }

  private async send(r: Request, headers: Record<string, string>, body: string | undefined): Promise<unknown> {
    const auth = r.auth !== false;
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      let usedToken: string | undefined;
      try {
        const h = { ...headers };
        if (auth) {
          usedToken = await this.accessToken();
          Object.assign(h, { apikey: this.o.apiKey, authorization: `Bearer ${usedToken}` });
        }
        const timeout = AbortSignal.timeout(this.o.timeoutMs);
        res = await this.o.fetch(this.url(r.path, r.query), {
          method: r.method,
          headers: h,
          body,
          signal: r.signal ? AbortSignal.any([r.signal, timeout]) : timeout,
        });
      } catch (err) {
        if (err instanceof KaribcheError) throw err; // the token fetch failed: it retried already
        if (r.signal?.aborted) throw err;
        if (attempt < this.o.maxRetries && this.mayRepeat(r.method)) {
          await sleep(this.backoff(attempt));
          continue;
        }
        const cause = (err as Error & { cause?: Error }).cause ?? err;
        throw new KaribcheError(
          0,
          { title: 'No answer', detail: `${r.method} ${r.path}: ${(cause as Error).message ?? String(cause)}` },
          { cause: err },
        );
      }
      const text = await res.text();
      if (res.ok) return parseJson(text);
      // A token refused (expired, or issued before the client secret was rotated): fetch a new
      // one once, unless another call already did.
      if (res.status === 401 && auth && !renewed) {
        renewed = true;
        if (this.token?.value === usedToken) this.token = null;
        attempt--;
        continue;
      }
      if (attempt < this.o.maxRetries && this.retryable(r.method, res)) {
        await sleep(retryAfterMs(res.headers.get('retry-after'), this.o.maxRetryDelayMs) ?? this.backoff(attempt));
        continue;
      }
      throw new KaribcheError(res.status, problemOf(text, res));
    }
  }

  /** Whether a request that may have reached the server can be sent again. */
  private mayRepeat(method: Request['method']): boolean {
    return method === 'GET' || this.o.serverIdempotency;
  }

  private retryable(method: Request['method'], res: Response): boolean {
    if (res.status === 429) return true; // refused before anything was done
    if (res.status === 503) return this.mayRepeat(method);
    // Karibche's 409s that say Retry-After are "in progress" (the same Idempotency-Key, or another
    // operation on the payment); the others (e.g. the last API key) will not change by waiting.
    if (res.status === 409) return this.mayRepeat(method) && res.headers.has('retry-after');
    return false;
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.o.maxRetryDelayMs, this.o.retryBaseMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function problemOf(text: string, res: Response): Problem {
  const parsed = parseJson(text);
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Problem;
  return { title: res.statusText, detail: typeof parsed === 'string' ? parsed.slice(0, 500) : '' };
}

/** Retry-After in seconds or as an HTTP date, capped; null when absent or unreadable. */
export function retryAfterMs(header: string | null, capMs: number): number | null {
  if (!header) return null;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(seconds) ? Math.min(Math.max(0, seconds), capMs) : null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
