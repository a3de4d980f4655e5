// One signed POST to a merchant: body exactly {"PaymentId": "..."}, a deadline, the first 1 KiB of
// the answer, and in production the address guard. What the merchant's server answers is hostile
// input like any request (issue 26): whatever it sends — 101 Switching Protocols, an endless or
// slow body, NUL bytes, a card number — the send settles by its deadline, reads a bounded amount,
// and keeps an excerpt the database accepts and that holds no control character, card number or
// secret.
import http from 'node:http';
import https from 'node:https';
import { scrubString } from '../requests/redact.ts';
import { guardedLookup, isNonPublicAddress, RefusedAddress } from './address-guard.ts';
import { signatureHeader, standardWebhookHeaders } from './signature.ts';

export const EXCERPT_BYTES = 1024;
/** Read past the excerpt so that a card number across its end is seen whole, and masked. */
const HEAD_BYTES = EXCERPT_BYTES + 64;
/** A body longer than this is not read to its end: the connection is dropped instead of reused. */
const MAX_READ_BYTES = 64 * 1024;
/** Control characters other than the tab and line breaks: a NUL is text PostgreSQL refuses. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * What is kept of an answer's first bytes: UTF-8 text (invalid sequences replaced) without control
 * characters, card numbers and secrets masked as the request log masks them, cut to EXCERPT_BYTES
 * bytes at a character — and before a run of digits the cut would split (part of a card number).
 */
export function responseExcerpt(head: Buffer): string {
  const text = scrubString(head.toString('utf8').replace(CONTROL, ''));
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > EXCERPT_BYTES) break;
    bytes += n;
    end += ch.length;
  }
  if (end >= text.length) return text;
  const kept = text.slice(0, end);
  return /[0-9 -]/.test(text[end]!) ? kept.replace(/[0-9 -]+$/, '') : kept;
}

// Connections to merchants are kept alive and reused (a new TCP handshake per callback was the
// dispatcher's main cost under load). A reused socket was checked by the guard when it opened.
// An idle socket is dropped after 4 s, before the 5 s keep-alive timeout of Node's and Apache's
// servers, so that we rarely write to a socket the merchant is closing.
const IDLE_SOCKET_MS = 4_000;
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_SOCKET_MS }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_SOCKET_MS }),
};
/** The errors of a reused socket that the server closed as our request went out (nothing was read). */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

export interface SendOptions {
  timeoutMs: number;
  /** Refuse non-public addresses (production mode). */
  guard: boolean;
  /** Bind outgoing connections to this local address (the published source address). */
  localAddress?: string;
}

/** The options every callback of this gateway is sent with. */
export function sendOptionsFor(config: {
  callbackTimeoutMs: number;
  mode: string;
  callbackLocalAddress?: string;
}): SendOptions {
  return {
    timeoutMs: config.callbackTimeoutMs,
    guard: config.mode === 'production',
    localAddress: config.callbackLocalAddress,
  };
}

export interface SendResult {
  httpStatus: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
}

export function callbackBody(payId: string): string {
  return JSON.stringify({ PaymentId: payId });
}

export async function sendCallback(
  url: string,
  payId: string,
  meta: { callbackId: string; sequence: number; secrets: string[]; timestamp: number; bare?: boolean },
  opts: SendOptions,
): Promise<SendResult> {
  const body = callbackBody(payId);
  const started = performance.now();
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return done({ httpStatus: null, error: 'invalid callback URL', excerpt: null });
  }
  if (opts.guard && isLiteralNonPublic(target.hostname)) {
    return done({ httpStatus: null, error: `callback host ${target.hostname} is a non-public address`, excerpt: null });
  }
  const client = target.protocol === 'https:' ? https : http;
  const pooled = target.protocol === 'https:' ? agents.https : agents.http;
  const deadline = started + opts.timeoutMs;
  // Guarded (production) and bound requests get their own connections: a pooled socket may not
  // have gone through this request's lookup or local address.
  const first = opts.guard || opts.localAddress ? false : pooled;
  const attempt = (agent: http.Agent | false): Promise<SendResult> =>
    new Promise<SendResult>((resolve) => {
      // Settled once, by whichever comes first: the answer, an error, or the deadline. A request that
      // Node leaves pending (a 101 with no upgrade listener never ends) cannot outlive its deadline.
      let settled = false;
      let status: number | null = null;
      const settle = (r: SendResult | Promise<SendResult>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(
        () => {
          settle(done({ httpStatus: status, error: `no answer within ${opts.timeoutMs} ms`, excerpt: null }));
          req.destroy();
        },
        Math.max(1, Math.round(deadline - performance.now())),
      );
      const req = client.request(
        target,
        {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            // The bank profile's callbacks are the bank's: the body alone, unsigned, no ids.
            ...(meta.bare
              ? {}
              : {
                  'User-Agent': 'Karibche-Callbacks/1',
                  'X-Callback-Id': meta.callbackId,
                  'X-Callback-Sequence': String(meta.sequence),
                  'X-Callback-Signature': signatureHeader(meta.secrets, meta.timestamp, body),
                  ...standardWebhookHeaders(meta.secrets, meta.callbackId, meta.timestamp, body),
                }),
          },
          lookup: opts.guard ? guardedLookup : undefined,
          localAddress: opts.localAddress,
          agent,
        },
        (res) => {
          status = res.statusCode ?? null;
          const head: Buffer[] = [];
          let size = 0;
          const answered = (error: string | null) =>
            settle(done({ httpStatus: status, error, excerpt: responseExcerpt(Buffer.concat(head)) }));
          res.on('data', (c: Buffer) => {
            if (size < HEAD_BYTES) head.push(c);
            size += c.length;
            if (size > MAX_READ_BYTES) {
              // The status is the answer; an endless body is not read to its end.
              answered(null);
              req.destroy();
            }
          });
          res.on('end', () => answered(null));
          res.on('error', (err) => answered(clean(err.message)));
          res.on('close', () => answered(res.complete ? null : 'the answer ended before its body did'));
        },
      );
      // 101 Switching Protocols is no answer to a callback: drop the connection it switched.
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        settle(
          done({ httpStatus: res.statusCode ?? 101, error: 'switched protocols instead of answering', excerpt: null }),
        );
      });
      req.on('error', (err) => {
        // A kept-alive socket that the merchant closed just as we wrote to it: the merchant never
        // read the request, so send it once more on a new connection (Node's documented remedy).
        if (
          agent &&
          req.reusedSocket &&
          status === null &&
          STALE_SOCKET.has((err as NodeJS.ErrnoException).code ?? '')
        ) {
          settle(attempt(false));
          return;
        }
        const message =
          err instanceof RefusedAddress
            ? err.message
            : `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${clean(err.message)}`;
        settle(done({ httpStatus: status, error: message, excerpt: null }));
      });
      req.on('close', () =>
        settle(done({ httpStatus: status, error: 'the connection closed without an answer', excerpt: null })),
      );
      req.end(body);
    });
  return attempt(first);
}

/** An error's message as recorded: printable, bounded. */
const clean = (message: string) => message.replace(CONTROL, '').slice(0, 300);

/** An IP literal in the URL never goes through DNS, so check it directly. */
function isLiteralNonPublic(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return /^[\d.]+$|:/.test(host) ? isNonPublicAddress(host) : host === 'localhost';
}
