// Rules for the settings the operator sets on a merchant (pure).
import { CALLBACK_URL_MAX_LENGTH, addressProblem, resolveCallbackUrl } from '../callbacks/addresses.ts';
import { ERRORS } from '../errors/catalogue.ts';
import type { FieldError } from '../errors/gateway-error.ts';
import { checkoutMethods, CURRENCIES } from '../payments/methods.ts';
import { parseAmount } from '../payments/money.ts';
import { charLength, hasControlCharacter, isWellFormedText } from '../payments/text.ts';
import { PROFILES, type MerchantSettings, type Profile } from './merchant.ts';

export const SETTINGS_LIMITS = { nameMaxLength: 100, prefixesMax: 20, urlMaxLength: CALLBACK_URL_MAX_LENGTH } as const;

/** The admin request's settings fields, after lenient binding and the schema's type checks. */
export interface SettingsInput {
  name?: string;
  status?: string;
  currencies?: string[];
  methods?: number[];
  splitEnrolled?: boolean;
  saveCardEnabled?: boolean;
  defaultCallbackUrl?: string | null;
  callbackUrlPrefixes?: string[];
  testMode?: boolean;
  testAmountLimit?: number | string;
  brandColor?: string | null;
  logoUrl?: string | null;
  profile?: string;
  transactionLimit?: number | string;
  dailyLimit?: number | string;
}

export type SettingsCheck = { ok: true; settings: Partial<MerchantSettings> } | { ok: false; errors: FieldError[] };

/**
 * Checks a full or partial set of settings against the merchant's `current` ones (a new merchant's
 * are the defaults); null clears a nullable setting.
 */
export function checkSettings(
  input: SettingsInput,
  current: Pick<MerchantSettings, 'defaultCallbackUrl' | 'callbackUrlPrefixes'>,
): SettingsCheck {
  const errors: FieldError[] = [];
  const fail = (field: string, reason: string) => errors.push({ field, reason, rule: ERRORS.invalidRequest });
  const out: Partial<MerchantSettings> = {};

  if (input.name !== undefined) {
    const name = input.name.trim();
    if (name === '' || charLength(name) > SETTINGS_LIMITS.nameMaxLength)
      fail('name', `must be 1 to ${SETTINGS_LIMITS.nameMaxLength} characters`);
    // Shown on every checkout page and in the dashboard: no control characters, no lone surrogates.
    else if (hasControlCharacter(name) || !isWellFormedText(name))
      fail('name', 'must not contain control characters or lone surrogates');
    else out.name = name;
  }
  if (input.status !== undefined) {
    if (input.status !== 'active' && input.status !== 'suspended') fail('status', 'must be active or suspended');
    else out.status = input.status;
  }
  if (input.currencies !== undefined) {
    const list = [...new Set(input.currencies.map((c) => c.toUpperCase()))];
    const bad = list.filter((c) => !(CURRENCIES as readonly string[]).includes(c));
    if (bad.length) fail('currencies', `unknown currencies: ${bad.join(', ')} (allowed: ${CURRENCIES.join(', ')})`);
    else if (list.length === 0) fail('currencies', 'must enable at least one currency');
    else out.currencies = list;
  }
  if (input.methods !== undefined) {
    const list = [...new Set(input.methods)];
    const bad = list.filter((m) => !checkoutMethods().includes(m));
    if (bad.length) fail('methods', `unknown methods: ${bad.join(', ')} (allowed: ${checkoutMethods().join(', ')})`);
    else if (list.length === 0) fail('methods', 'must enable at least one method');
    else out.methods = list.sort((a, b) => a - b);
  }
  if (input.splitEnrolled !== undefined) out.splitEnrolled = input.splitEnrolled;
  if (input.saveCardEnabled !== undefined) out.saveCardEnabled = input.saveCardEnabled;
  if (input.testMode !== undefined) out.testMode = input.testMode;
  if (input.callbackUrlPrefixes !== undefined) {
    const list = [...new Set(input.callbackUrlPrefixes)];
    if (list.length > SETTINGS_LIMITS.prefixesMax)
      fail('callbackUrlPrefixes', `must have at most ${SETTINGS_LIMITS.prefixesMax} entries`);
    list.forEach((p, i) => {
      const problem = p.length > SETTINGS_LIMITS.urlMaxLength ? 'is too long' : addressProblem(p);
      if (problem) fail(`callbackUrlPrefixes[${i}]`, problem);
    });
    out.callbackUrlPrefixes = list;
  }
  if (input.defaultCallbackUrl === null) out.defaultCallbackUrl = null;
  else if (input.defaultCallbackUrl !== undefined) out.defaultCallbackUrl = input.defaultCallbackUrl;
  // The default callback URL obeys the one callback rule (resolveCallbackUrl), like a payment's
  // callbackUrl: under one of the registered callback addresses as they are after this change.
  const defaultUrl = out.defaultCallbackUrl !== undefined ? out.defaultCallbackUrl : current.defaultCallbackUrl;
  const addresses = out.callbackUrlPrefixes ?? current.callbackUrlPrefixes;
  const verdict = defaultUrl ? resolveCallbackUrl(defaultUrl, addresses) : null;
  if (verdict && !verdict.ok) {
    if (!verdict.unregistered) {
      // A malformed URL can only be a new one: a stored default passed this rule when it was set.
      fail('defaultCallbackUrl', verdict.reason);
      delete out.defaultCallbackUrl;
    } else if (!errors.some((e) => e.field.startsWith('callbackUrlPrefixes'))) {
      const field = input.defaultCallbackUrl !== undefined ? 'defaultCallbackUrl' : 'callbackUrlPrefixes';
      errors.push({
        field,
        reason: 'the default callback URL must be under one of the registered callback addresses (callbackUrlPrefixes)',
        rule: ERRORS.callbackUrlNotRegistered,
      });
    }
  }
  const limit = (field: 'testAmountLimit' | 'transactionLimit' | 'dailyLimit') => {
    const raw = input[field];
    if (raw === undefined) return;
    const p = parseAmount(raw);
    if (!p.ok) fail(field, p.reason);
    else if (p.minor <= 0) fail(field, 'must be greater than 0');
    else out[field] = p.minor;
  };
  limit('testAmountLimit');
  limit('transactionLimit');
  limit('dailyLimit');
  if (input.profile !== undefined) {
    const profile = input.profile.toLowerCase();
    if (!(PROFILES as readonly string[]).includes(profile)) fail('profile', `must be ${PROFILES.join(' or ')}`);
    else out.profile = profile as Profile;
  }
  if (input.brandColor !== undefined && input.brandColor !== null) {
    if (!/^#[0-9a-fA-F]{6}$/.test(input.brandColor)) fail('brandColor', 'must be a colour like #1a73e8');
    else out.brandColor = input.brandColor.toLowerCase();
  } else if (input.brandColor === null) out.brandColor = null;
  if (input.logoUrl !== undefined && input.logoUrl !== null) {
    const ok =
      /^data:image\/(png|svg\+xml|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(input.logoUrl) &&
      input.logoUrl.length <= 48_000;
    if (!ok)
      fail(
        'logoUrl',
        'must be a data:image/…;base64 URL of at most 48,000 characters (the checkout page loads no external assets)',
      );
    else out.logoUrl = input.logoUrl;
  } else if (input.logoUrl === null) out.logoUrl = null;

  return errors.length ? { ok: false, errors } : { ok: true, settings: out };
}
