// Rules for the settings the operator sets on a merchant (pure).
import { addressProblem, callbackUrlProblem, isRegisteredCallbackUrl } from '../callbacks/addresses.ts';
import { ERRORS } from '../errors/catalogue.ts';
import type { FieldError } from '../errors/gateway-error.ts';
import { CHECKOUT_METHODS, CURRENCIES } from '../payments/methods.ts';
import { parseAmount } from '../payments/money.ts';
import { charLength } from '../payments/text.ts';
import type { MerchantSettings } from './merchant.ts';

export const SETTINGS_LIMITS = { nameMaxLength: 100, prefixesMax: 20, urlMaxLength: 2048 } as const;

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
}

export type SettingsCheck = { ok: true; settings: Partial<MerchantSettings> } | { ok: false; errors: FieldError[] };

/**
 * Checks a full or partial set of settings against the merchant's `current` ones (a new merchant's
 * are the defaults); null clears a nullable setting.
 */
export function checkSettings(input: SettingsInput, current: Pick<MerchantSettings, 'defaultCallbackUrl' | 'callbackUrlPrefixes'>): SettingsCheck {
  const errors: FieldError[] = [];
  const fail = (field: string, reason: string) => errors.push({ field, reason, rule: ERRORS.invalidRequest });
  const out: Partial<MerchantSettings> = {};

  if (input.name !== undefined) {
    const name = input.name.trim();
    if (name === '' || charLength(name) > SETTINGS_LIMITS.nameMaxLength) fail('name', `must be 1 to ${SETTINGS_LIMITS.nameMaxLength} characters`);
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
    const bad = list.filter((m) => !CHECKOUT_METHODS.includes(m));
    if (bad.length) fail('methods', `unknown methods: ${bad.join(', ')} (allowed: ${CHECKOUT_METHODS.join(', ')})`);
    else if (list.length === 0) fail('methods', 'must enable at least one method');
    else out.methods = list.sort((a, b) => a - b);
  }
  if (input.splitEnrolled !== undefined) out.splitEnrolled = input.splitEnrolled;
  if (input.saveCardEnabled !== undefined) out.saveCardEnabled = input.saveCardEnabled;
  if (input.testMode !== undefined) out.testMode = input.testMode;
  if (input.callbackUrlPrefixes !== undefined) {
    const list = [...new Set(input.callbackUrlPrefixes)];
    if (list.length > SETTINGS_LIMITS.prefixesMax) fail('callbackUrlPrefixes', `must have at most ${SETTINGS_LIMITS.prefixesMax} entries`);
    list.forEach((p, i) => {
      const problem = p.length > SETTINGS_LIMITS.urlMaxLength ? 'is too long' : addressProblem(p);
      if (problem) fail(`callbackUrlPrefixes[${i}]`, problem);
    });
    out.callbackUrlPrefixes = list;
  }
  if (input.defaultCallbackUrl !== undefined && input.defaultCallbackUrl !== null) {
    const problem = input.defaultCallbackUrl.length > SETTINGS_LIMITS.urlMaxLength ? 'is too long' : callbackUrlProblem(input.defaultCallbackUrl);
    if (problem) fail('defaultCallbackUrl', problem);
    else out.defaultCallbackUrl = input.defaultCallbackUrl;
  } else if (input.defaultCallbackUrl === null) out.defaultCallbackUrl = null;
  // The default callback URL obeys the same rule as a payment's callbackUrl: it must be under one of
  // the registered callback addresses (as they are after this change).
  const defaultUrl = out.defaultCallbackUrl !== undefined ? out.defaultCallbackUrl : current.defaultCallbackUrl;
  const addresses = out.callbackUrlPrefixes ?? current.callbackUrlPrefixes;
  if (defaultUrl && !errors.some((e) => e.field.startsWith('callbackUrlPrefixes') || e.field === 'defaultCallbackUrl') && !isRegisteredCallbackUrl(defaultUrl, addresses)) {
    const field = input.defaultCallbackUrl !== undefined ? 'defaultCallbackUrl' : 'callbackUrlPrefixes';
    errors.push({ field, reason: 'the default callback URL must be under one of the registered callback addresses (callbackUrlPrefixes)', rule: ERRORS.callbackUrlNotRegistered });
  }
  if (input.testAmountLimit !== undefined) {
    const p = parseAmount(input.testAmountLimit);
    if (!p.ok) fail('testAmountLimit', p.reason);
    else if (p.minor <= 0) fail('testAmountLimit', 'must be greater than 0');
    else out.testAmountLimit = p.minor;
  }
  if (input.brandColor !== undefined && input.brandColor !== null) {
    if (!/^#[0-9a-fA-F]{6}$/.test(input.brandColor)) fail('brandColor', 'must be a colour like #1a73e8');
    else out.brandColor = input.brandColor.toLowerCase();
  } else if (input.brandColor === null) out.brandColor = null;
  if (input.logoUrl !== undefined && input.logoUrl !== null) {
    const ok = /^data:image\/(png|svg\+xml|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(input.logoUrl) && input.logoUrl.length <= 48_000;
    if (!ok) fail('logoUrl', 'must be a data:image/…;base64 URL of at most 48,000 characters (the checkout page loads no external assets)');
    else out.logoUrl = input.logoUrl;
  } else if (input.logoUrl === null) out.logoUrl = null;

  return errors.length ? { ok: false, errors } : { ok: true, settings: out };
}
