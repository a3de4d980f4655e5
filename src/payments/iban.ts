import { electronicFormatIBAN, isValidIBAN } from 'ibantools';

export type IbanCheck = { ok: true; iban: string } | { ok: false; kind: 'format' | 'foreign'; reason: string };

/**
 * Validates a split-destination IBAN: ISO 13616 structure and mod-97 check (ibantools), then that
 * the account is a Georgian one at the operator's own bank (bank code = characters 5–6 of a GE IBAN).
 */
export function checkSplitIban(input: string, bankCode: string): IbanCheck {
  const iban = electronicFormatIBAN(input) ?? '';
  if (!isValidIBAN(iban)) return { ok: false, kind: 'format', reason: 'is not a valid IBAN (format or check digits)' };
  if (!iban.startsWith('GE')) return { ok: false, kind: 'foreign', reason: 'must be a Georgian (GE) IBAN' };
  if (iban.slice(4, 6) !== bankCode) {
    return { ok: false, kind: 'foreign', reason: `must be an account at this bank (bank code ${bankCode})` };
  }
  return { ok: true, iban };
}

/** Normalised IBAN (no spaces, upper case) or null when it is not a valid IBAN at all. */
export function normaliseIban(input: string): string | null {
  const iban = electronicFormatIBAN(input) ?? '';
  return isValidIBAN(iban) ? iban : null;
}
