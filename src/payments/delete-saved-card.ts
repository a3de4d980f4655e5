// Delete a saved card (SPEC 9): deleting again is fine; another merchant's card is as unknown as
// one that never existed.
import { ERRORS } from '../errors/catalogue.ts';
import { gatewayError } from '../errors/gateway-error.ts';
import type { UnitOfWork } from '../idempotency/unit-of-work.ts';
import type { PaymentDeps } from './deps.ts';
import { isWellFormedId } from './ids.ts';
import { markCardDeleted } from './saved-card-store.ts';

export interface DeletedCard {
  recId: string;
}

export async function deleteSavedCard(
  s: Pick<PaymentDeps, 'db' | 'clock'>,
  clientId: string,
  recId: string,
  uow: UnitOfWork<DeletedCard>,
): Promise<DeletedCard> {
  if (!isWellFormedId(recId)) throw gatewayError(ERRORS.cardNotFound);
  return uow.finish(async (q) => {
    if (!(await markCardDeleted(q, clientId, recId, s.clock.now()))) throw gatewayError(ERRORS.cardNotFound);
    return { recId };
  });
}
