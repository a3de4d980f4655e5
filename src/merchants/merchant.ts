// A merchant: its settings (what the operator allows it) and credential state.
import { toJsonAmount } from '../payments/money.ts';

/** How the gateway answers the merchant: Karibche's default, or as the real bank does (docs/bank-profile.md). */
export const PROFILES = ['karibche', 'bank'] as const;
export type Profile = (typeof PROFILES)[number];

export interface MerchantSettings {
  name: string;
  status: 'active' | 'suspended';
  currencies: string[];
  methods: number[];
  splitEnrolled: boolean;
  saveCardEnabled: boolean;
  defaultCallbackUrl: string | null;
  callbackUrlPrefixes: string[];
  testMode: boolean;
  /** Minor units. */
  testAmountLimit: number;
  brandColor: string | null;
  logoUrl: string | null;
  profile: Profile;
  /** Bank profile: the largest GEL payment, minor units. */
  transactionLimit: number;
  /** Bank profile: the GEL volume of one business day, minor units. */
  dailyLimit: number;
}

export interface Merchant extends MerchantSettings {
  clientId: string;
  clientSecretHash: string;
  secretVersion: number;
  callbackSecret: string;
  callbackSecretPrev: string | null;
  callbackSecretPrevUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const DEFAULT_SETTINGS: Omit<MerchantSettings, 'name'> = {
  status: 'active',
  currencies: ['GEL'],
  methods: [5],
  splitEnrolled: false,
  saveCardEnabled: false,
  defaultCallbackUrl: null,
  callbackUrlPrefixes: [],
  testMode: false,
  testAmountLimit: 10_000,
  brandColor: null,
  logoUrl: null,
  profile: 'karibche',
  transactionLimit: 300_000,
  dailyLimit: 1_000_000,
};

export interface MerchantRow {
  client_id: string;
  name: string;
  status: 'active' | 'suspended';
  currencies: string[];
  methods: number[];
  split_enrolled: boolean;
  save_card_enabled: boolean;
  default_callback_url: string | null;
  callback_url_prefixes: string[];
  test_mode: boolean;
  test_amount_limit: number;
  brand_color: string | null;
  logo_url: string | null;
  profile: Profile;
  transaction_limit: number;
  daily_limit: number;
  client_secret_hash: string;
  secret_version: number;
  callback_secret: string;
  callback_secret_prev: string | null;
  callback_secret_prev_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function merchantFromRow(r: MerchantRow): Merchant {
  return {
    clientId: r.client_id,
    name: r.name,
    status: r.status,
    currencies: r.currencies,
    methods: r.methods,
    splitEnrolled: r.split_enrolled,
    saveCardEnabled: r.save_card_enabled,
    defaultCallbackUrl: r.default_callback_url,
    callbackUrlPrefixes: r.callback_url_prefixes,
    testMode: r.test_mode,
    testAmountLimit: Number(r.test_amount_limit),
    brandColor: r.brand_color,
    logoUrl: r.logo_url,
    profile: r.profile,
    transactionLimit: Number(r.transaction_limit),
    dailyLimit: Number(r.daily_limit),
    clientSecretHash: r.client_secret_hash,
    secretVersion: r.secret_version,
    callbackSecret: r.callback_secret,
    callbackSecretPrev: r.callback_secret_prev,
    callbackSecretPrevUntil: r.callback_secret_prev_until,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** What the operator API shows of a merchant: settings, never secrets. */
export function merchantView(m: Merchant) {
  return {
    clientId: m.clientId,
    name: m.name,
    status: m.status,
    currencies: m.currencies,
    methods: m.methods,
    splitEnrolled: m.splitEnrolled,
    saveCardEnabled: m.saveCardEnabled,
    defaultCallbackUrl: m.defaultCallbackUrl,
    callbackUrlPrefixes: m.callbackUrlPrefixes,
    testMode: m.testMode,
    testAmountLimit: toJsonAmount(m.testAmountLimit),
    brandColor: m.brandColor,
    logoUrl: m.logoUrl,
    profile: m.profile,
    transactionLimit: toJsonAmount(m.transactionLimit),
    dailyLimit: toJsonAmount(m.dailyLimit),
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}
