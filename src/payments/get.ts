// Get payment (SPEC 5). A Created payment whose time is up is expired on the spot, so what the
// merchant reads is always true even between two sweeps.
import { ERRORS } from '../api/errors.ts';
import { problem } from '../api/problem.ts';
import type { Services } from '../services.ts';
import { expireOne } from './expiry.ts';
import { isWellFormedId } from './ids.ts';
import { selectSavedCard } from './saved-cards.ts';
import { selectPayment } from './store.ts';
import { STATUS } from './statuses.ts';
import { paymentLinks, paymentView } from './view.ts';

export async function getPayment(s: Pick<Services, 'config' | 'db' | 'clock'>, clientId: string, payId: string, productPath: string) {
  if (!isWellFormedId(payId)) throw problem(ERRORS.paymentNotFound);
  let row = await selectPayment(s.db, clientId, payId);
  if (!row) throw problem(ERRORS.paymentNotFound);
  if (row.status === STATUS.created && row.expires_at.getTime() <= s.clock.nowMs()) {
    await expireOne(s.db, payId, s.clock.now());
    row = (await selectPayment(s.db, clientId, payId))!;
  }
  const recId = row.rec_id ?? row.charged_rec_id;
  const card = recId ? await selectSavedCard(s.db, recId) : null;
  const recurringCard = card && card.status === 'active' ? { recId: card.rec_id, cardMask: card.card_mask, expiryDate: card.valid_to } : null;
  return paymentView(row, paymentLinks(s.config.publicUrl, productPath, payId), recurringCard);
}
