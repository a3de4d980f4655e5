// GET /events/stream: the merchant's payment status changes as server-sent events. Woken by the
// hub (LISTEN/NOTIFY) rather than by polling; it re-reads soon after a read that found events
// waiting for an older transaction to end, and once per keep-alive as a safety net for a
// notification lost while the listening connection was down.
import { once } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { positionOf, readFeed, type FeedRow } from '../feed/feed.ts';
import type { EventHub } from '../feed/hub.ts';
import { formatPosition, type FeedPosition } from '../feed/position.ts';
import type { Db } from '../store/db.ts';

export interface EventStreamDeps {
  db: Db;
  hub: EventHub;
  log: Logger;
  keepAliveMs: number;
  /** The API's security headers (a hijacked reply skips the onSend hook that adds them). */
  headers: Record<string, string>;
  /**
   * Whether the credentials that opened the stream still hold (token not expired, API key not
   * revoked, secret not rotated, merchant not suspended): asked at every keep-alive, so revoking
   * a key or suspending a merchant ends its open streams within one keep-alive interval.
   */
  stillAuthorised: () => Promise<boolean>;
}

const PAGE = 100;
/** First re-read after events were held back by an older open transaction; doubles up to 1 s. */
const HELD_RETRY_MS = 20;
/** How soon an EventSource reconnects after the stream ends (the SSE `retry` field). */
const RECONNECT_MS = 2_000;

export async function serveEventStream(
  d: EventStreamDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  clientId: string,
  from: FeedPosition,
  view: (r: FeedRow) => unknown,
): Promise<void> {
  const res = reply.raw;
  let closed = false;
  let woken = false;
  let alarm: (() => void) | null = null;
  const wake = () => {
    woken = true;
    alarm?.();
  };
  const end = () => {
    if (closed) return;
    closed = true;
    wake();
    res.end();
  };
  // Registered before the first read, so a change committed from here on wakes the loop.
  const unregister = await d.hub.open(clientId, { wake, close: end });
  reply.hijack();
  res.on('close', end);
  res.writeHead(200, {
    ...d.headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    // A stream's connection is never reused: closing it with the stream leaves nothing for the
    // gateway's stop to wait on.
    Connection: 'close',
    'X-Request-Id': String(request.id),
  });
  const write = async (chunk: string) => {
    if (closed) return;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  };
  // A request injected in process (light-my-request: tests, the hostile-input suites) is answered
  // only once its response ends: it gets the events there are now, and the stream ends.
  const injected = (res as { isLightMyRequest?: boolean }).isLightMyRequest === true;
  let cursor = from;
  await write(`retry: ${RECONNECT_MS}\n: events after ${formatPosition(cursor)}\n\n`);
  const keepAlive = setInterval(() => {
    void d.stillAuthorised().then(async (yes) => {
      if (yes) {
        await write(': keep-alive\n\n');
        wake();
      } else {
        await write(': access ended: the credentials that opened this stream no longer hold\n\n');
        end();
      }
    });
  }, d.keepAliveMs);
  let heldMs = 0;
  try {
    while (!closed) {
      woken = false;
      const { rows, held } = await readFeed(d.db, clientId, cursor, PAGE);
      for (const r of rows) {
        if (closed) break;
        cursor = positionOf(r);
        await write(`id: ${formatPosition(cursor)}\ndata: ${JSON.stringify(view(r))}\n\n`);
      }
      if (rows.length === PAGE || woken) continue;
      if (injected) break;
      heldMs = held ? Math.min(heldMs ? heldMs * 2 : HELD_RETRY_MS, 1_000) : 0;
      await new Promise<void>((resolve) => {
        const timer = heldMs ? setTimeout(resolve, heldMs) : null;
        alarm = () => {
          if (timer) clearTimeout(timer);
          resolve();
        };
        if (closed) alarm();
      });
      alarm = null;
    }
  } catch (err) {
    // The client reconnects with Last-Event-ID and loses nothing.
    d.log.warn({ err, clientId }, 'event stream ended by an error');
  } finally {
    clearInterval(keepAlive);
    unregister();
    end();
  }
}
