// What a customer types — the checkout's card, bank-login and 3-D Secure forms, and the sandbox's
// simulate body that stands in for them — checked by one set of small validators under POLICY, so
// the page and simulate accept and refuse the same input (customer-choice.ts composes them).
import {
  cardNumbersIn,
  isCardExpired,
  isLuhnValid,
  maskCardNumbersIn,
  normaliseCardNumber,
  parseCardExpiry,
  type CardField,
  type CardInput,
  type CardProblem,
} from '../card.ts';
import { hasControlCharacter, isWellFormedText } from '../text.ts';
import { POLICY } from './policy.ts';

export type CheckedCard = { number: string; expMonth: number; expYear: number; securityCode: string; holder: string };

/** Free text a customer typed: well-formed, no control characters, within `max` characters. */
const typedText = (value: string, max: number) =>
  isWellFormedText(value) && !hasControlCharacter(value) && [...value].length <= max;

/** The cardholder's name: spaces folded, 2–100 characters, no control characters, markup or card number. */
export function cardHolder(raw: string | undefined): string | null {
  const holder = (raw ?? '').trim().replace(/\s+/g, ' ');
  if (
    [...holder].length < POLICY.cardHolderMinLength ||
    !typedText(holder, POLICY.cardHolderMaxLength) ||
    /[<>]/.test(holder)
  )
    return null;
  // A number typed into the name field is kept nowhere (the page remembers the name).
  if (cardNumbersIn(holder).length) return null;
  return holder;
}

/** The card's security code: 3 or 4 digits. */
export function securityCode(raw: string | undefined): string | null {
  const code = (raw ?? '').trim();
  const { min, max } = POLICY.securityCodeDigits;
  return new RegExp(`^\\d{${min},${max}}$`).test(code) ? code : null;
}

/**
 * Checks what a customer typed into the card form. Problems are codes (the page words them in
 * the customer's language); `now` is the current year and month in the gateway's time zone.
 */
export function checkCardInput(
  input: CardInput,
  now: { year: number; month: number },
): { ok: true; card: CheckedCard } | { ok: false; problems: Partial<Record<CardField, CardProblem>> } {
  const problems: Partial<Record<CardField, CardProblem>> = {};
  const number = normaliseCardNumber(input.number ?? '');
  if (!isLuhnValid(number)) problems.number = 'invalid_number';
  const exp = parseCardExpiry(input.expiry ?? '');
  if (!exp || exp.year > now.year + POLICY.cardExpiryYearsAhead) problems.expiry = 'invalid_expiry';
  else if (isCardExpired(exp, now)) problems.expiry = 'expired';
  const code = securityCode(input.securityCode);
  if (code === null) problems.securityCode = 'invalid_security_code';
  const holder = cardHolder(input.holder);
  if (holder === null) problems.holder = 'missing_holder';
  if (Object.keys(problems).length) return { ok: false, problems };
  return { ok: true, card: { number, expMonth: exp!.month, expYear: exp!.year, securityCode: code!, holder: holder! } };
}

/** Internet-bank credentials as typed: null when they cannot be anyone's (too long, control characters). */
export function bankLoginInput(raw: {
  username?: string;
  password?: string;
}): { username: string; password: string } | null {
  const username = (raw.username ?? '').trim();
  const password = raw.password ?? '';
  if (!typedText(username, POLICY.bankLoginMaxLength) || !typedText(password, POLICY.bankLoginMaxLength)) return null;
  return { username, password };
}

/**
 * What a form shows again of what the customer typed (the name after a card problem, the user name
 * after a failed login, the expiry): control characters and lone surrogates dropped, a card number
 * typed into the wrong field masked to its last four, within `max`.
 */
export function formEcho(raw: string | undefined, max: number): string {
  const clean = (raw ?? '')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '');
  return [...maskCardNumbersIn(clean.trim())].slice(0, max).join('');
}

/**
 * The 3-D Secure code the cardholder entered (the checkout's challenge form, simulate's `otp`):
 * trimmed; anything that cannot be a code (too long, control characters) becomes the empty code,
 * which fails authentication like a wrong one.
 */
export function challengeCode(raw: string | undefined): string {
  const code = (raw ?? '').trim();
  return typedText(code, POLICY.challengeCodeMaxLength) ? code : '';
}
