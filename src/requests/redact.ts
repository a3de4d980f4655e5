// Redaction of request and response bodies before the request log stores them: secrets and card
// data never reach the table, whatever field name or shape they arrive in.
import { cardNumbersIn, maskCardNumbersIn } from '../payments/card.ts';

const SECRET_KEY = /secret|password|passwd|token|apikey|api_key|authorization|cvc|cvv|cvv2|pan|card_?number|cardnumber/i;
/** Runs of 12–19 digits (spaces or dashes allowed) look like a card number: masked to the last 4. */
const PAN_LIKE = /\b(?:\d[ -]?){8,15}(\d{4})\b/g;
// No word boundary before the prefix: a secret glued to the text before it ("0whsec_…") is a secret too.
const SECRET_VALUE = /(kbk|kbs|kba|whsec)_[A-Za-z0-9_+/=-]+/g;
export const MAX_STORED_BODY = 4096;

/**
 * Whether `s` could hold anything scrubString changes: a card-like run needs 12 digits or more
 * (PAN_LIKE 12, a card number 13), a secret its prefix and an underscore. Most strings of a
 * request (amounts, URLs, ids) have neither and skip the three regular expressions, which were the
 * gateway's largest JavaScript cost per create-payment (6.5% of its profile with the JSON work).
 */
function mayHide(s: string): boolean {
  if (s.includes('_')) return true;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57 && ++digits >= 12) return true;
  }
  return false;
}

function scrubString(s: string): string {
  if (!mayHide(s)) return s;
  // Card numbers as the history checker finds them (src/payments/card.ts) first, then any other
  // run of card-like digits. Again until nothing changes: the last four digits a mask keeps can
  // join the digits after the run into a new card number ("5555 5555 5555 444411266" left
  // "••••5555 444411266", and 5555444411266 passes Luhn). Each round removes digits, so it ends.
  let out = s;
  for (let before = ''; out !== before; ) {
    before = out;
    out = maskCardNumbersIn(out).replace(PAN_LIKE, (_m, last4: string) => `••••${last4}`).replace(SECRET_VALUE, '$1_[redacted]');
  }
  return out;
}

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  // A card number sent as a JSON number is a card number too.
  if (typeof value === 'number') return mayHide(String(value)) && cardNumbersIn(String(value)).length ? maskCardNumbersIn(String(value)) : value;
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && v !== null && v !== '' ? '[redacted]' : scrub(v, depth + 1);
  return out;
}

/** The body as stored: JSON redacted field by field, anything else scrubbed as text; truncated. */
export function redactBody(body: unknown): string | null {
  if (body === undefined || body === null || body === '') return null;
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = body;
    }
  } else if (Buffer.isBuffer(body)) return '[binary]';
  const text = typeof parsed === 'string' ? scrubString(parsed) : JSON.stringify(scrub(parsed));
  return text.length > MAX_STORED_BODY ? `${text.slice(0, MAX_STORED_BODY)}…` : text;
}
