// Redaction of request and response bodies before the request log stores them: secrets and card
// data never reach the table, whatever field name or shape they arrive in.
import { cardNumbersIn, maskCardNumbersIn } from '../payments/card.ts';

const SECRET_KEY =
  /secret|password|passwd|token|apikey|api_key|authorization|cvc|cvv|cvv2|pan|card_?number|cardnumber/i;
/** Runs of 12–19 digits (spaces or dashes allowed) look like a card number: masked to the last 4. */
const PAN_LIKE = /\b(?:\d[ -]?){8,15}(\d{4})\b/g;
// No word boundary before the prefix: a secret glued to the text before it ("0whsec_…") is a secret too.
const SECRET_VALUE = /(kbk|kbs|kba|whsec)_[A-Za-z0-9_+/=-]+/g;
export const MAX_STORED_BODY = 4096;

/**
 * Whether `s` could hold anything scrubString changes: a card-like run needs 12 digits or more
 * (PAN_LIKE 12, a card number 13) with at most one space or dash between two of them, a secret
 * its prefix and an underscore. Most strings of a request (amounts, URLs, ids) have neither and
 * skip the three regular expressions, which were the gateway's largest JavaScript cost per
 * create-payment (6.5% of its profile with the JSON work).
 */
function mayHide(s: string): boolean {
  return s.includes('_') || hasCardLikeRun(s);
}

/** 12 digits or more, with at most one space or dash between two of them. */
function hasCardLikeRun(s: string): boolean {
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      if (++run >= 12) return true;
    } else if (!((c === 32 || c === 45) && run > 0 && isDigit(s.charCodeAt(i + 1)))) run = 0;
  }
  return false;
}
const isDigit = (c: number) => c >= 48 && c <= 57;

/** A secret prefix anywhere in a JSON text (underscores elsewhere, as in `access_token`, are keys). */
const SECRET_PREFIX = /(?:kbk|kbs|kba|whsec)_/;

/**
 * Whether a whole text (JSON or not) is stored as it is: no secret-like field name or value, no card-like
 * run of digits, and no escape (`\u0020` would join digits into a card number once parsed).
 * Most bodies pass, and skip a parse, a walk and a second serialisation.
 */
function cleanText(text: string): boolean {
  return !text.includes('\\') && !SECRET_PREFIX.test(text) && !SECRET_KEY.test(text) && !hasCardLikeRun(text);
}

/** Free text with every card number and secret in it masked (what the request log does to a body's strings). */
export function scrubString(s: string): string {
  if (!mayHide(s)) return s;
  // Card numbers as the history checker finds them (src/payments/card.ts) first, then any other
  // run of card-like digits. Again until nothing changes: the last four digits a mask keeps can
  // join the digits after the run into a new card number ("5555 5555 5555 444411266" left
  // "••••5555 444411266", and 5555444411266 passes Luhn). Each round removes digits, so it ends.
  let out = s;
  for (let before = ''; out !== before; ) {
    before = out;
    out = maskCardNumbersIn(out)
      .replace(PAN_LIKE, (_m, last4: string) => `••••${last4}`)
      .replace(SECRET_VALUE, '$1_[redacted]');
  }
  return out;
}

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  // A card number sent as a JSON number is a card number too.
  if (typeof value === 'number')
    return mayHide(String(value)) && cardNumbersIn(String(value)).length ? maskCardNumbersIn(String(value)) : value;
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    let key = scrubKey(k);
    for (let n = 2; key !== k && Object.hasOwn(out, key); n++) key = `${scrubKey(k)} (${n})`;
    out[key] = SECRET_KEY.test(k) && v !== null && v !== '' ? '[redacted]' : scrub(v, depth + 1);
  }
  return out;
}

/** A field name as code writes one. */
const PLAIN_KEY = /^[A-Za-z0-9_.$@-]{1,64}$/;

/**
 * A key holds what a client put there, not always a name: a JSON body posted as a form is ONE key,
 * the whole document with its card number and client_secret. A key that is no field name and
 * names a secret is hidden whole; any key is scrubbed as a value is.
 */
function scrubKey(k: string): string {
  if (!PLAIN_KEY.test(k) && SECRET_KEY.test(k)) return '[redacted]';
  return scrubString(k);
}

/** A URL part decoded as a server would, leniently: a stray `%` or a broken UTF-8 escape stays as it is. */
function decoded(s: string): string {
  const text = s.replace(/\+/g, ' ');
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    // Invalid UTF-8 somewhere: the ASCII escapes (digits among them) one by one.
    return text.replace(/%([0-7][0-9A-Fa-f])/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/**
 * One part of a URL, as sent when neither it nor its decoded text (`%34%31…` is a card number too)
 * hides anything. Otherwise its decoded text, scrubbed, with `%` and `+` shown as ％ and ＋: with
 * no escape left, what is logged reads the same decoded or not, and the scrubbing holds for both.
 */
function scrubUrlPart(part: string): string {
  const text = decoded(part);
  const clean = scrubString(text);
  if (clean === text && scrubString(part) === part) return part;
  return clean.replace(/%/g, '％').replace(/\+/g, '＋');
}

/**
 * A request's URL as the access log and the request log keep it: card numbers and secrets out of
 * its path and query whatever their encoding, and the value of a secret-named query parameter
 * (`?client_secret=…`) hidden. Most URLs have nothing to hide and are returned as they are.
 */
export function redactUrl(url: string): string {
  if (!url.includes('?') && !url.includes('%') && !url.includes('+') && !mayHide(url)) return url;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).split('/').map(scrubUrlPart).join('/');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return scrubUrlPart(pair);
      const name = pair.slice(0, eq);
      return `${scrubUrlPart(name)}=${SECRET_KEY.test(decoded(name)) ? '[redacted]' : scrubUrlPart(pair.slice(eq + 1))}`;
    })
    .join('&');
  return `${path}?${query}`;
}

/** The body as stored: JSON redacted field by field, anything else scrubbed as text; truncated. */
export function redactBody(body: unknown): string | null {
  if (body === undefined || body === null || body === '') return null;
  if (Buffer.isBuffer(body)) return '[binary]';
  let text: string;
  if (typeof body === 'string') {
    // A response (or a text request): stored as sent when nothing in it can hide. (Parsed and
    // scrubbed, such a text would come out the same, but for a JSON text's whitespace.)
    text = cleanText(body) ? body : redactParsed(body);
  } else {
    const json = JSON.stringify(body);
    text = json !== undefined && cleanText(json) ? json : JSON.stringify(scrub(body));
  }
  return truncate(text, MAX_STORED_BODY);
}

/**
 * At most `max` characters and an ellipsis. A cut inside a run of digits drops the run's head too:
 * 16 digits cut from a longer run that is no card number can be one (Luhn-valid one time in ten).
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const next = text.charCodeAt(max);
  const head = text.slice(0, max);
  return `${isDigit(next) || next === 32 || next === 45 ? head.replace(/[0-9 -]+$/, '') : head}…`;
}

function redactParsed(body: string): string {
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = body;
  }
  return typeof parsed === 'string' ? scrubString(parsed) : JSON.stringify(scrub(parsed));
}
