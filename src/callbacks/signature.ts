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

/** The merchant's signing secrets now: the current one, and the previous one during its grace. */
export function activeSecrets(m: { callbackSecret: string; callbackSecretPrev: string | null; callbackSecretPrevUntil: Date | null }, now: Date): string[] {
  const prevValid = m.callbackSecretPrev && m.callbackSecretPrevUntil && m.callbackSecretPrevUntil.getTime() > now.getTime();
  return prevValid ? [m.callbackSecret, m.callbackSecretPrev!] : [m.callbackSecret];
}
