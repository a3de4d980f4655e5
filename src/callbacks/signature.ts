// X-Callback-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">. While a secret
// rotation is in progress the previous secret signs too (a second v1), so merchants can switch
// their verification over at any moment within the grace period.
import { createHmac } from 'node:crypto';

export function sign(secret: string, t: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
}

export function signatureHeader(secrets: string[], t: number, rawBody: string): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${sign(s, t, rawBody)}`)].join(',');
}

/**
 * The same callback signed the Standard Webhooks way (standardwebhooks.com), so that its reference
 * libraries verify it with the merchant's callbackSecret as given: `webhook-id`, `webhook-timestamp`
 * (the same real-time seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`,
 * one per active secret, space-separated. The key is the secret after `whsec_`, base64-decoded,
 * exactly as those libraries decode it. Every secret the gateway issues has that form. Two kinds
 * of secret do not interoperate with the libraries and need one rotation: `whsec_` + base64url
 * secrets issued before the standard format (Node's decoder here reads base64url, so the gateway
 * still signs with the right key, but stricter base64 decoders elsewhere refuse `-` and `_`), and a
 * secret without `whsec_` (never issued; only possible if set by hand), whose UTF-8 bytes are the
 * key here while the libraries would base64-decode it.
 */
export function standardWebhookHeaders(
  secrets: string[],
  id: string,
  t: number,
  rawBody: string,
): Record<string, string> {
  const signatures = secrets.map((s) => {
    const key = s.startsWith('whsec_') ? Buffer.from(s.slice(6), 'base64') : Buffer.from(s, 'utf8');
    return `v1,${createHmac('sha256', key).update(`${id}.${t}.${rawBody}`).digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': String(t), 'webhook-signature': signatures.join(' ') };
}

/** The merchant's signing secrets now: the current one, and the previous one during its grace. */
export function activeSecrets(
  m: { callbackSecret: string; callbackSecretPrev: string | null; callbackSecretPrevUntil: Date | null },
  now: Date,
): string[] {
  const prevValid =
    m.callbackSecretPrev && m.callbackSecretPrevUntil && m.callbackSecretPrevUntil.getTime() > now.getTime();
  return prevValid ? [m.callbackSecret, m.callbackSecretPrev!] : [m.callbackSecret];
}
