// The merchant's events feed: pages (GET /events) and a live stream (GET /events/stream) read as
// an async iterator that reconnects with Last-Event-ID, so a dropped connection loses nothing.
import { KaribcheError, type Problem } from './errors.ts';
import { readSse } from './sse.ts';
import { retryAfterMs, type Transport } from './transport.ts';
import type { EventListQuery, EventPage, PaymentEvent } from './types.ts';

export interface StreamOptions {
  /** Start after this event id; default: only changes from now on. */
  after?: string;
  /** Reconnect when the connection drops or the gateway restarts (default true). */
  reconnect?: boolean;
  signal?: AbortSignal;
  /** Told each time a connection is open (and after which event id it resumes). */
  onConnect?: (resumedAfter: string | undefined) => void;
  /** Told when a connection ended and the next try waits `delayMs`. */
  onDisconnect?: (error: unknown, delayMs: number) => void;
}

export class Events {
  constructor(private readonly t: Transport) {}

  list(query: EventListQuery = {}, options: { signal?: AbortSignal } = {}): Promise<EventPage> {
    return this.t.request({ method: 'GET', path: this.t.product('/events'), query, signal: options.signal });
  }

  /** Every status change from `after` (or from now), live, for as long as it is iterated. */
  async *stream(options: StreamOptions = {}): AsyncGenerator<PaymentEvent> {
    const reconnect = options.reconnect !== false;
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let lastId = options.after;
    let retryMs = 2_000;
    let failures = 0;
    try {
      while (!signal.aborted) {
        let error: unknown = null;
        try {
          const res = await this.connect(lastId, signal);
          failures = 0;
          options.onConnect?.(lastId);
          for await (const frame of readSse(res.body!)) {
            if (frame.retry !== undefined) retryMs = frame.retry;
            if (!frame.data) continue;
            const event = JSON.parse(frame.data) as PaymentEvent;
            lastId = frame.id ?? event.id;
            yield event;
          }
        } catch (err) {
          if (signal.aborted) return;
          if (err instanceof KaribcheError && err.status !== 0 && err.status !== 429 && err.status < 500) throw err;
          error = err;
        }
        if (!reconnect) {
          if (error) throw error;
          return;
        }
        const delay = Math.min(30_000, retryMs * 2 ** Math.min(failures++, 4));
        options.onDisconnect?.(error, delay);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      }
    } finally {
      stop.abort(); // the consumer stopped iterating: close the connection
    }
  }

  /** Opens the stream: one fresh token on a 401, problem JSON as a KaribcheError otherwise. */
  private async connect(lastId: string | undefined, signal: AbortSignal): Promise<Response> {
    for (let renew = false; ; renew = true) {
      const headers: Record<string, string> = { ...(await this.t.authHeaders(renew)), accept: 'text/event-stream' };
      if (lastId) headers['last-event-id'] = lastId;
      let res: Response;
      try {
        res = await this.t.o.fetch(this.t.url(this.t.product('/events/stream')), { headers, signal });
      } catch (err) {
        throw new KaribcheError(0, { title: 'No answer', detail: (err as Error).message }, { cause: err });
      }
      if (res.ok && res.body) return res;
      const text = await res.text();
      if (res.status === 401 && !renew) continue;
      let problem: Problem;
      try {
        problem = JSON.parse(text) as Problem;
      } catch {
        problem = { title: res.statusText, detail: text.slice(0, 500) };
      }
      const wait = retryAfterMs(res.headers.get('retry-after'), 30_000);
      if (wait !== null) await new Promise((r) => setTimeout(r, wait));
      throw new KaribcheError(res.status, problem);
    }
  }
}
