// SQL for saved cards: written when a payment that asked for saveCard is approved. A pre-authorised one
// stays pending until the payment is completed (SPEC 8).
import type { Queryable } from '../store/db.ts';
import { earlierMmYy } from './card.ts';
import type { PaymentRow } from './row.ts';

export interface SavedCardRow {
  rec_id: string;
  client_id: string;
  pay_id: string;
  card_token: string;
  card_mask: string;
  card_expiry: string;
  valid_to: string;
  status: 'pending' | 'active' | 'deleted';
  split_iban: string | null;
  split_amount: number | null;
}

export async function insertSavedCard(
  q: Queryable,
  p: PaymentRow,
  card: { token: string; mask: string; expiry: string },
  now: Date,
): Promise<void> {
  await q.query(
    `INSERT INTO saved_cards (rec_id, client_id, pay_id, card_token, card_mask, card_expiry, valid_to, status, split_iban, split_amount, created_at, updated_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$11) ON CONFLICT (rec_id) DO NOTHING`,
    [
      p.rec_id,
      p.client_id,
      p.pay_id,
      card.token,
      card.mask,
      card.expiry,
      p.save_card_to_date ? earlierMmYy(p.save_card_to_date, card.expiry) : card.expiry,
      p.pre_auth ? 'pending' : 'active',
      p.split_iban,
      p.split_amount,
      now,
    ],
  );
}

export async function selectSavedCard(q: Queryable, recId: string): Promise<SavedCardRow | null> {
  const { rows } = await q.query<SavedCardRow>('SELECT * FROM saved_cards WHERE rec_id = $1', [recId]);
  return rows[0] ?? null;
}

/** A pre-authorised payment's card becomes usable when the payment is completed. */
export async function activateSavedCard(q: Queryable, recId: string, now: Date): Promise<void> {
  await q.query(`UPDATE saved_cards SET status = 'active', updated_at = $2 WHERE rec_id = $1 AND status = 'pending'`, [
    recId,
    now,
  ]);
}

/** Deletes a merchant's saved card; false when it has none with that recId. Deleting twice is fine. */
export async function markCardDeleted(q: Queryable, clientId: string, recId: string, now: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE saved_cards SET status = 'deleted', updated_at = $3 WHERE rec_id = $1 AND client_id = $2`,
    [recId, clientId, now],
  );
  return rowCount > 0;
}
