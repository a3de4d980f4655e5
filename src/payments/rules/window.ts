// When a refund, a void and a completion are allowed (SPEC 7, 8), as one pure function of what
// decides it: the payment's status, its pre-authorisation block window, the business day of the
// transaction and the days it was refunded on. The API's cancel and completion, the dashboard's
// buttons and the model test's reference model all ask this one function.
import { ERRORS, type ErrorDef } from '../../errors/catalogue.ts';
import { businessDay } from '../business-day.ts';
import type { PaymentRow } from '../row.ts';
import { STATUS } from '../state-machine.ts';

export interface WindowFacts {
  status: string;
  /** When the pre-authorisation block ends (a WaitingConfirm payment); null: no block. */
  blockUntil: Date | null;
  /** The business day of the transaction (its approval). */
  transactionDay: string | null;
  /** The business days with a refund that was not refused (one per refund). */
  refundDays: readonly string[];
  /** A pre-authorisation its block's end gave back to the customer (Returned with no void or capture
   * of its own): a late completion or void is told the block expired, whether the sweep has already
   * run or not. */
  released: boolean;
}

/** Why an operation is not allowed now. */
export interface Blocked {
  def: ErrorDef;
  detail: string;
}

export interface OperationWindow {
  refund: Blocked | null;
  void: Blocked | null;
  complete: Blocked | null;
}

export function operationWindow(f: WindowFacts, now: Date, today: string): OperationWindow {
  const waiting = f.status === STATUS.waitingConfirm;
  const paid = f.status === STATUS.succeeded || f.status === STATUS.partialReturned;
  const notCancellable: Blocked = {
    def: ERRORS.notCancellable,
    detail: `A ${f.status} payment cannot be cancelled: only Succeeded, PartialReturned or WaitingConfirm ones can`,
  };
  // Past its block window a pre-authorisation is released to the customer (the expiry sweep returns
  // it): nothing is left to capture or to void.
  const blockOver: Blocked | null =
    f.released || (waiting && f.blockUntil !== null && now.getTime() >= f.blockUntil.getTime())
      ? {
          def: ERRORS.blockExpired,
          detail: 'The pre-authorisation block has expired; the payment was or will be returned',
        }
      : null;
  return {
    refund: !paid
      ? f.released
        ? blockOver
        : waiting
          ? {
              def: ERRORS.notCancellable,
              detail: `A ${f.status} payment cannot be refunded: only a Succeeded or PartialReturned one can`,
            }
          : notCancellable
      : today === f.transactionDay && f.refundDays.includes(today)
        ? {
            def: ERRORS.sameDayCancel,
            detail:
              'A payment can be cancelled only once on the day of the transaction; apply to the bank for the rest, or refund on a later day',
          }
        : null,
    void:
      waiting || f.released
        ? blockOver
        : paid
          ? {
              def: ERRORS.notCancellable,
              detail: `A ${f.status} payment cannot be voided: only a WaitingConfirm one can`,
            }
          : notCancellable,
    complete:
      waiting || f.released
        ? blockOver
        : {
            def: ERRORS.notCancellable,
            detail: `Only a WaitingConfirm payment can be completed; this one is ${f.status}`,
          },
  };
}

/** A stored payment's facts: its row and its earlier operations (kind, outcome, business day). */
export function windowFacts(
  p: Pick<PaymentRow, 'status' | 'pre_auth_expires_at' | 'paid_at' | 'created_at'>,
  earlier: readonly { kind: string; status: string; business_day: string }[],
  timeZone: string,
): WindowFacts {
  return {
    status: p.status,
    blockUntil: p.pre_auth_expires_at,
    transactionDay: businessDay(p.paid_at ?? p.created_at, timeZone),
    refundDays: earlier.filter((o) => o.kind === 'refund' && o.status !== 'refused').map((o) => o.business_day),
    // Only the expiry sweep returns a pre-authorisation without an operation that was done.
    released:
      p.status === STATUS.returned && p.pre_auth_expires_at !== null && !earlier.some((o) => o.status === 'done'),
  };
}
