// The boundary to the acquirer (the bank's card processing). Payment logic speaks only this
// interface; the sandbox plugs in the simulator, production a real connector.
import type { MethodData } from '../payments/methods/index.ts';

export type { MethodData } from '../payments/methods/index.ts';

export interface CardDetails {
  /** Full card number: passed through to the acquirer, never stored or logged by the gateway. */
  number: string;
  expMonth: number;
  expYear: number;
  securityCode: string;
  holder: string;
}

declare const simulatorOnly: unique symbol;
/** Something only the sandbox simulator can read. */
export type SimulatorNote = { readonly [simulatorOnly]: true };

export interface AuthoriseRequest {
  /** Unique per attempt; the acquirer answers status() for it (reconciliation). */
  reference: string;
  amount: number;
  currency: string;
  method: number;
  preAuth: boolean;
  /** What the method hands the acquirer, by method (src/payments/methods/): the card a customer
   * typed (5), a saved card's token (11), the wallet (9, 14); the others carry only their code. */
  data: MethodData;
  /** Opaque to a connector: the sandbox simulator's instructions for a flow that exists only in
   * its simulation (src/acquirer/simulation/instructions.ts). A real connector never reads it. */
  simulation?: SimulatorNote;
  /** Split allocation the acquirer must apply: amount to this IBAN, the rest to the merchant. */
  split?: { iban: string; amount: number } | null;
  /** Ask the acquirer to keep a token of the card for later charges. */
  tokenise?: boolean;
  /** Business time of the payment's merchant (its sandbox clock; a real acquirer ignores it). */
  now?: Date;
}

export type AcquirerResult =
  | {
      outcome: 'approved';
      transactionId: string;
      rrn: string;
      cardToken?: string;
      cardMask?: string;
      /** MMYY */
      cardExpiry?: string;
      /** How many days the issuer keeps a pre-authorisation block. */
      blockDays: number;
    }
  | { outcome: 'declined'; resultCode: string }
  | { outcome: 'challenge'; challengeId: string }
  /** The acquirer has not decided (no answer yet); ask status() later. */
  | { outcome: 'pending' };

export interface Acquirer {
  authorise(req: AuthoriseRequest): Promise<AcquirerResult>;
  /** Completes a 3-D Secure challenge with the code the cardholder entered. */
  completeChallenge(challengeId: string, code: string, now?: Date): Promise<AcquirerResult>;
  /** What became of an attempt (after a timeout or a crash). */
  /** `now`, as in completeChallenge: the payment's business time, for the sandbox simulator. */
  status(reference: string, now?: Date): Promise<AcquirerResult>;
  /** Capture, void and refund are idempotent per reference (a retry after a crash repeats nothing). */
  capture(reference: string, transactionId: string, amount: number): Promise<OperationAnswer>;
  void(reference: string, transactionId: string): Promise<OperationAnswer>;
  refund(
    reference: string,
    transactionId: string,
    amount: number,
    split?: { iban: string; amount: number } | null,
  ): Promise<OperationAnswer>;
}

export type OperationAnswer = { ok: true } | { ok: false; resultCode: string };

/**
 * A connector throws this when the acquirer did not answer (its timeout, a refused or broken
 * connection): the payment stays processing and the reconciler asks again. Any other error is a
 * bug and surfaces as one.
 */
export class AcquirerNoAnswer extends Error {
  constructor(message = 'the acquirer did not answer', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AcquirerNoAnswer';
  }
}

/**
 * A connector throws this when the acquirer answered with a technical error and performed nothing
 * (a system error on its side). Unlike a lost answer there is nothing to ask again: an attempt ends
 * as declined (`check_with_acquirer`), a capture, void or refund is refused and may be retried.
 */
export class AcquirerFailed extends Error {
  constructor(message = 'the acquirer failed and performed nothing', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AcquirerFailed';
  }
}

export const DEFAULT_BLOCK_DAYS = 30;
