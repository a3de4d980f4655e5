// Verifies a callback from Karibche with the merchant's callbackSecret, under either scheme the
// gateway signs every callback with:
//   X-Callback-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>[,v1=<…>]
//     (a second v1 while a rotated secret is still in its grace period);
//   Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256(
//     key, "<id>.<t>.<body>")> [v1,<…>], the key being the secret after whsec_ base64-decoded.
// The timestamp must be within the tolerance of real time (a replayed old callback fails).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignatureError } from './errors.ts';

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Allowed distance between the callback's timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now in milliseconds (tests). */
  now?: number;
}

export interface VerifiedCallback {
  /** The payment to look up (GET /payments/{payId}): the callback carries nothing else. */
  payId: string;
  scheme: 'x-callback-signature' | 'standard-webhooks';
  /** X-Callback-Id (or webhook-id): the same for every retry of one callback. */
  callbackId: string | null;
  timestamp: number;
}

function header(h: HeaderBag, name: string): string | undefined {
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  const bag = h as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : bag[key];
  return Array.isArray(v) ? v[0] : v;
}

const same = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function verifyCallback(
  headers: HeaderBag,
  rawBody: string | Buffer,
  secret: string | string[],
  options: VerifyOptions = {},
): VerifiedCallback {
  const secrets = (Array.isArray(secret) ? secret : [secret]).filter(Boolean);
  if (secrets.length === 0) throw new SignatureError('no callback secret given');
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = (options.now ?? Date.now()) / 1000;
  const fresh = (t: number) => {
    if (!Number.isInteger(t)) throw new SignatureError('the signature has no valid timestamp');
    if (Math.abs(nowSeconds - t) > tolerance)
      throw new SignatureError(
        `the timestamp is ${Math.round(nowSeconds - t)} s from now, outside the ${tolerance} s tolerance`,
      );
  };

  const signature = header(headers, 'x-callback-signature');
  const webhookSignature = header(headers, 'webhook-signature');
  let scheme: VerifiedCallback['scheme'];
  let t: number;
  let callbackId: string | null;
  if (signature) {
    scheme = 'x-callback-signature';
    const parts = signature.split(',').map((p) => p.trim().split('='));
    t = Number(parts.find(([k]) => k === 't')?.[1]);
    fresh(t);
    const given = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => Buffer.from(v!, 'hex'));
    const ok = secrets.some((s) => {
      const expected = createHmac('sha256', s).update(`${t}.${body}`).digest();
      return given.some((g) => same(g, expected));
    });
    if (!ok) throw new SignatureError('X-Callback-Signature does not match the body with this secret');
    callbackId = header(headers, 'x-callback-id') ?? null;
  } else if (webhookSignature) {
    scheme = 'standard-webhooks';
    const id = header(headers, 'webhook-id');
    const ts = header(headers, 'webhook-timestamp');
    if (!id || !ts) throw new SignatureError('webhook-id and webhook-timestamp are required with webhook-signature');
    t = /^\d+$/.test(ts) ? Number(ts) : NaN;
    fresh(t);
    const given = webhookSignature
      .split(' ')
      .filter((s) => s.startsWith('v1,'))
      .map((s) => Buffer.from(s.slice(3), 'base64'));
    const ok = secrets.some((s) => {
      const expected = createHmac('sha256', standardKey(s)).update(`${id}.${t}.${body}`).digest();
      return given.some((g) => same(g, expected));
    });
    if (!ok) throw new SignatureError('webhook-signature does not match the body with this secret');
    callbackId = id;
  } else {
    throw new SignatureError('the request carries neither X-Callback-Signature nor webhook-signature');
  }

  let payId: unknown;
  try {
    payId = (JSON.parse(body) as { PaymentId?: unknown }).PaymentId;
  } catch {
    throw new SignatureError('the signed body is not JSON');
  }
  if (typeof payId !== 'string') throw new SignatureError('the signed body has no PaymentId');
  return { payId, scheme, callbackId, timestamp: t };
}
