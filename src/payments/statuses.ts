// The payment state machine of SPEC 6 as data. Operations consult it; the SQL refuses any move
// from a status other than the one the operation locked and checked.

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

export function isFinal(status: Status): boolean {
  return FINAL_STATUSES.has(status);
}
