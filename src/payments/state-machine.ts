// The payment state machine of SPEC 6, declared once. The database holds the same table
// (payment_transitions, migration 006) and refuses any other move — through a check compiled from
// that table and rebuilt whenever it changes (migration 021); a test keeps the two equal.
// moveStatus() in store.ts is the only code that changes a status, and it checks here first.

export const STATUS = {
  created: 'Created',
  processing: 'Processing',
  succeeded: 'Succeeded',
  failed: 'Failed',
  expired: 'Expired',
  waitingConfirm: 'WaitingConfirm',
  completionProcessing: 'PaymentCompletionProcessing',
  cancelProcessing: 'CancelPaymentProcessing',
  returned: 'Returned',
  partialReturned: 'PartialReturned',
} as const;

export type Status = (typeof STATUS)[keyof typeof STATUS];

export const STATUSES: readonly Status[] = Object.values(STATUS);

/** Entering one of these produces one callback event. */
export const FINAL_STATUSES: ReadonlySet<Status> = new Set<Status>([
  STATUS.succeeded,
  STATUS.failed,
  STATUS.expired,
  STATUS.waitingConfirm,
  STATUS.returned,
  STATUS.partialReturned,
]);

export const TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  Created: [STATUS.processing, STATUS.expired],
  // Declined with attempts left goes back to Created (the last resultCode is kept).
  Processing: [STATUS.succeeded, STATUS.waitingConfirm, STATUS.failed, STATUS.created],
  WaitingConfirm: [STATUS.completionProcessing, STATUS.cancelProcessing, STATUS.returned],
  // A refused completion or cancel goes back to where it came from.
  PaymentCompletionProcessing: [STATUS.succeeded, STATUS.waitingConfirm],
  CancelPaymentProcessing: [STATUS.returned, STATUS.partialReturned, STATUS.succeeded, STATUS.waitingConfirm],
  Succeeded: [STATUS.cancelProcessing],
  PartialReturned: [STATUS.cancelProcessing],
  Failed: [],
  Expired: [],
  Returned: [],
};

export function canTransition(from: Status, to: Status): boolean {
  return TRANSITIONS[from].includes(to);
}

/** A move the state machine does not declare is a programming error, never a client's. */
export function assertTransition(from: Status, to: Status): void {
  if (!canTransition(from, to)) throw new Error(`undeclared payment transition ${from} -> ${to}`);
}

export function isFinal(status: Status): boolean {
  return FINAL_STATUSES.has(status);
}
