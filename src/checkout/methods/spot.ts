// The forms of flows the customer approves on the spot (wallet sheets, points, the installment
// application): approve, the sandbox's "bank declines" test button, or cancel.
import type { Form, FormReading } from './method.ts';

/**
 * The customer cancelling the sheet, the points payment or the application is no attempt and no
 * decline: back to the page with `notice`, nothing started. A bank decline is the sandbox's test
 * button (these flows exist only in the sandbox).
 */
export function spotForm(form: Form, notice: string, keep?: Record<string, string | number>): FormReading {
  const decline = form.outcome === 'decline';
  if (form.outcome !== 'approve' && !decline) return { cancelled: notice, keep };
  return { choice: { outcome: decline ? 'decline' : 'approve' }, keep };
}
