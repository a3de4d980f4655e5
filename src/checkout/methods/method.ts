// A payment method on the checkout page, as one module on a fixed interface (listed in index.ts):
// its tile (picture, label), its panel, how its posted form becomes the customer's choice, and its
// texts per language where the shared dictionary (../i18n.ts) has none for it.
import type { Static } from 'typebox';
import { LANGUAGES, type Language } from '../../i18n/languages.ts';
import type { ChoiceInput } from '../../payments/customer-choice.ts';
import type { PaymentRow } from '../../payments/row.ts';
import type { Html } from '../../html/html.ts';
import type { Texts } from '../i18n.ts';
import type { PageContext } from '../layout.ts';
import type { CheckoutForm } from '../schemas.ts';

export type Form = Static<typeof CheckoutForm>;

/** What the panel shows besides the payment: the state of a form answered with a page. */
export interface PanelState {
  cardProblems?: Partial<
    Record<import('../../payments/card.ts').CardField, import('../../payments/card.ts').CardProblem>
  >;
  /** The cardholder name and expiry just typed (after a failed validation; never the number or code). */
  holder?: string;
  expiry?: string;
  loginFailed?: boolean;
  username?: string;
  qrSvg?: Html;
  qrUrl?: string;
  /** The installment term the customer chose before. */
  term?: number;
}

/** What a panel may need from the gateway before it is drawn (the QR code's address). */
export interface PanelEnv {
  payment: PaymentRow;
  publicUrl: string;
  checkoutSecret: Buffer;
}

/** A posted form read by its method: the choice to check, or the customer cancelled (no attempt). */
export type FormReading =
  | { choice: ChoiceInput; keep?: Record<string, string | number> }
  | { cancelled: string; keep?: Record<string, string | number> }
  /** Not a form this method's panel posts (its flow happens elsewhere). */
  | null;

export interface CheckoutMethod {
  code: number;
  /** Its place among the tiles (and the page's default: the first offered). */
  order: number;
  /** The tile's picture (decorative: the label names the method). */
  icon(): Html;
  /** The tile's label where it differs from the name: a soft hyphen (U+00AD) where a long word may break on a narrow phone. */
  tile?: Partial<Record<Language, string>>;
  /** The method's panel on the pay page. */
  panel(c: PageContext, st: PanelState): Html;
  /** Gathers what the panel needs from the gateway (the QR code). */
  prepare?(env: PanelEnv): Promise<PanelState>;
  /** The pay page reloads itself every so many seconds while this panel is shown (the QR page waits for the app). */
  refreshSeconds?: number;
  /** How the posted form becomes a choice (or a cancellation). */
  readForm(form: Form): FormReading;
  /** The notices (?notice=…) this method's cancellation leads to, and their text. */
  notices?: Record<string, (t: Texts, name: string) => string>;
  /** The customer's wording of a decline with this method, where it differs from the bank's general one. */
  declineText?(t: Texts, resultCode: string | null): string | undefined;
}

/** The language of a page's texts, as the method modules key theirs. */
export const languageOf = (t: Texts): Language => LANGUAGES.find((l) => l === t.lang) ?? 'ka';
