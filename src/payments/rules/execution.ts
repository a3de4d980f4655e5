// The rules of a saved-card charge (SPEC 9): the same validators as create for what the two share
// (currency, amount and the charge limit, statement texts, the merchant's own id, split shares).
import { ERRORS } from '../../errors/catalogue.ts';
import { Violations, gatewayError } from '../../errors/gateway-error.ts';
import { formatMinor } from '../money.ts';
import { isMonthInPast, parseMmYy } from '../text.ts';
import type { SavedCardRow } from '../saved-card-store.ts';
import { amount, ansiText, chargeLimit, currency, oneOf, plainText } from './fields.ts';
import { POLICY, type RuleContext } from './policy.ts';
import { splitTerms, type SplitShare } from './split.ts';

export interface ExecutionInput {
  recId: string;
  money: { amount: number | string; currency: string };
  preAuth?: boolean;
  initiator?: string;
  merchantPaymentId?: string;
  extra?: string;
  extra2?: string | number;
}

export interface CheckedExecution {
  currency: string;
  amount: number;
  preAuth: boolean;
  initiator: 'client' | 'merchant';
  merchantPaymentId: string | null;
  extra: string | null;
  extra2: string | null;
}

/** The request's own values (before the card is looked up). */
export function checkExecution(input: ExecutionInput, ctx: RuleContext): CheckedExecution {
  const v = new Violations();
  const code = currency(v, 'money.currency', input.money.currency, ctx.merchant);
  let minor = amount(v, 'money.amount', input.money.amount, { min: 1, max: ctx.maxAmountMinor });
  if (minor !== null && !chargeLimit(v, 'money.amount', minor, code, ctx.merchant)) minor = null;
  const initiator =
    input.initiator === undefined ? 'client' : oneOf(v, 'initiator', input.initiator, ['client', 'merchant'] as const);
  const merchantPaymentId =
    input.merchantPaymentId === undefined
      ? null
      : plainText(v, 'merchantPaymentId', input.merchantPaymentId, POLICY.merchantPaymentIdMaxLength);
  const extra =
    input.extra === undefined || input.extra === '' ? null : ansiText(v, 'extra', input.extra, POLICY.extraMaxLength);
  const extra2Text = input.extra2 === undefined || input.extra2 === '' ? null : String(input.extra2);
  const extra2 = extra2Text === null ? null : ansiText(v, 'extra2', extra2Text, POLICY.extra2MaxLength);
  v.throwIfAny();
  return {
    currency: code!,
    amount: minor!,
    preAuth: input.preAuth === true,
    initiator: initiator!,
    merchantPaymentId,
    extra,
    extra2,
  };
}

/** The card can be charged now: the merchant's, active, within its save date. */
export function checkCardUsable(card: SavedCardRow | null, ctx: RuleContext): SavedCardRow {
  if (!card || card.client_id !== ctx.merchant.clientId) throw gatewayError(ERRORS.cardNotFound);
  if (card.status === 'deleted') throw gatewayError(ERRORS.cardNotUsable, { detail: 'The saved card was deleted' });
  if (card.status !== 'active')
    throw gatewayError(ERRORS.cardNotUsable, {
      detail: 'The card becomes usable when its pre-authorised payment is completed',
    });
  if (isMonthInPast(parseMmYy(card.valid_to)!, ctx.now, ctx.timeZone))
    throw gatewayError(ERRORS.cardNotUsable, { detail: `The card was saved until ${card.valid_to} (MMYY)` });
  return card;
}

/**
 * A split card charges with the IBAN and share stored when it was saved (they replace the
 * request's extra and extra2). The charge is a split payment like any other: the same terms as a
 * split create (splitTerms: the share fits the new amount, the currency is GEL).
 */
export function executionSplit(
  card: SavedCardRow,
  checked: Pick<CheckedExecution, 'amount' | 'currency'>,
): { split: SplitShare; extra: string; extra2: string } | null {
  if (!card.split_iban || card.split_amount === null) return null;
  const v = new Violations();
  splitTerms(v, { field: 'money.amount', minor: card.split_amount }, checked.amount, {
    field: 'money.currency',
    code: checked.currency,
  });
  if (v.has('money.amount')) {
    // Reworded for this request: the share is the card's, the amount is what the merchant sends.
    throw gatewayError(ERRORS.splitAmountInvalid, {
      detail: `money.amount must be such that the card's split amount is at most ${POLICY.splitMaxPercent}% of it`,
      fields: [
        {
          field: 'money.amount',
          reason: `must be such that the card's split amount ${formatMinor(card.split_amount)} is at most ${POLICY.splitMaxPercent}% of it`,
          rule: ERRORS.splitAmountInvalid,
        },
      ],
    });
  }
  v.throwIfAny();
  return {
    split: { iban: card.split_iban, amount: card.split_amount },
    extra: card.split_iban,
    extra2: formatMinor(card.split_amount),
  };
}
