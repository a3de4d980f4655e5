// What a merchant may change of its own settings (from the dashboard): its shop's name, logo and
// brand colour, its default callback URL and its registered callback addresses — never what the
// operator decides (status, currencies, methods, split, saved cards, test mode and limit). The same
// rules as the operator API (checkSettings), applied under the merchant row's lock, so two changes
// at once (two tabs adding an address each) both land.
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError, invalidFields } from '../errors/gateway-error.ts';
import type { Db } from '../store/db.ts';
import type { MerchantDirectory } from './directory.ts';
import type { Merchant } from './merchant.ts';
import { checkSettings, type SettingsInput } from './settings.ts';
import { lockMerchant, updateMerchantSettings } from './store.ts';

export const MERCHANT_EDITABLE = [
  'name',
  'logoUrl',
  'brandColor',
  'defaultCallbackUrl',
  'callbackUrlPrefixes',
] as const;
export type MerchantEditable = Pick<SettingsInput, (typeof MERCHANT_EDITABLE)[number]>;

/**
 * Applies the change `edit` computes from the merchant's current settings. Only the fields of
 * MERCHANT_EDITABLE are taken from it; a refusal is the operator API's (invalidFields).
 */
export async function changeOwnSettings(
  s: { db: Db; clock: { now(): Date }; merchants: MerchantDirectory },
  clientId: string,
  edit: (current: Merchant) => MerchantEditable,
): Promise<Merchant> {
  const updated = await s.db.tx(async (q) => {
    const current = await lockMerchant(q, clientId);
    if (!current) throw gatewayError(ERRORS.merchantNotFound);
    const asked = edit(current);
    const input: MerchantEditable = {};
    for (const key of MERCHANT_EDITABLE)
      if (asked[key] !== undefined) (input as Record<string, unknown>)[key] = asked[key];
    const checked = checkSettings(input, current);
    if (!checked.ok) throw invalidFields(checked.errors);
    return Object.keys(checked.settings).length
      ? ((await updateMerchantSettings(q, clientId, checked.settings, s.clock.now())) ?? current)
      : current;
  });
  await s.merchants.changed(clientId);
  return updated;
}
