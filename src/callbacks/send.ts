// One signed POST to a merchant: body exactly {"PaymentId": "..."}, a deadline, the first 1 KiB of
// the answer, and in production the address guard.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, isNonPublicAddress, RefusedAddress } from './address-guard.ts';
import { signatureHeader, standardWebhookHeaders } from './signature.ts';

export const EXCERPT_BYTES = 1024;

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
export function sendOptionsFor(config: { callbackTimeoutMs: number; mode: string; callbackLocalAddress?: string }): SendOptions {
  return { timeoutMs: config.callbackTimeoutMs, guard: config.mode === 'production', localAddress: config.callbackLocalAddress };
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
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
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
  const attempt = (agent: http.Agent | false): Promise<SendResult> => new Promise<SendResult>((resolve) => {
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
        signal: AbortSignal.timeout(Math.max(1, Math.round(deadline - performance.now()))),
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => resolve(done({ httpStatus: res.statusCode ?? null, error: null, excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') })));
        res.on('error', (err) => resolve(done({ httpStatus: res.statusCode ?? null, error: err.message, excerpt: null })));
      },
    );
    req.on('error', (err) => {
      // A kept-alive socket that the merchant closed just as we wrote to it: the merchant never
      // read the request, so send it once more on a new connection (Node's documented remedy).
      if (agent && req.reusedSocket && STALE_SOCKET.has((err as NodeJS.ErrnoException).code ?? '')) {
        resolve(attempt(false));
        return;
      }
      const message =
        err.name === 'TimeoutError' || err.name === 'AbortError'
          ? `no answer within ${opts.timeoutMs} ms`
          : err instanceof RefusedAddress
            ? err.message
            : `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${err.message}`;
      resolve(done({ httpStatus: null, error: message, excerpt: null }));
    });
    req.end(body);
  });
  return attempt(first);
}

/** An IP literal in the URL never goes through DNS, so check it directly. */
function isLiteralNonPublic(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return /^[\d.]+$|:/.test(host) ? isNonPublicAddress(host) : host === 'localhost';
}
