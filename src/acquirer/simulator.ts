// The sandbox acquirer: answers like an issuer would for the test cards, keeps its books in the
// database (so a restart or another gateway process sees the same acquirer), tokenises cards, runs
// 3-D Secure challenges, and has a card that never answers. It never stores a card number.
import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { maskCardNumber, toMmYy } from '../payments/card.ts';
import { yearMonthIn } from '../payments/text.ts';
import { newTransactionId, randomHex } from '../payments/ids.ts';
import type { Db, Queryable } from '../store/db.ts';
import {
  AcquirerNoAnswer,
  DEFAULT_BLOCK_DAYS,
  type Acquirer,
  type AcquirerResult,
  type AuthoriseRequest,
  type OperationAnswer,
} from './acquirer.ts';
import { openNote } from './simulation/instructions.ts';
import {
  APPROVING,
  CHALLENGE_CODE,
  CHALLENGING,
  EXECUTION_DECLINE_CODE,
  WALLET_CARD,
  behaviourOf,
  declineCodeOf,
  type Behaviour,
} from './simulation/test-cards.ts';

/** A challenge the cardholder leaves unanswered this long is declined. */
export const CHALLENGE_TIMEOUT_MS = 10 * 60_000;

interface SimRow {
  reference: string;
  status: 'challenge' | 'no_answer' | 'delayed' | 'approved' | 'declined';
  behaviour: Behaviour;
  result_code: string | null;
  transaction_id: string | null;
  rrn: string | null;
  card_token: string | null;
  card_mask: string | null;
  card_expiry: string | null;
  block_days: number | null;
  challenge_id: string | null;
  /** A delayed answer: when it is decided (sandbox clock). */
  settle_at: Date | null;
  created_at: Date;
}

const rrn = () => String(randomInt(1e11, 1e12));

export class SimulatorAcquirer implements Acquirer {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly latencyMs = 0,
    /** Where the authorisation records go: the gateway's group commit under load, else `db`. */
    private readonly records: Queryable = db,
    /** Where its hot reads go (a saved card's token, an authorisation a refund asks about): the
     * gateway's shared reads, else `db`. */
    private readonly reads: Queryable = db,
  ) {}

  private async delay(): Promise<void> {
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
  }

  async authorise(req: AuthoriseRequest): Promise<AcquirerResult> {
    await this.delay();
    const now = req.now ?? this.clock.now();
    let behaviour: Behaviour;
    let mask: string | null = null;
    let expiry: string | null = null;
    const data = req.data;
    const told = openNote(req.simulation);
    if ('card' in data) {
      behaviour = behaviourOf(data.card.number);
      mask = maskCardNumber(data.card.number);
      expiry = toMmYy({ month: data.card.expMonth, year: data.card.expYear });
    } else if ('cardToken' in data) {
      const { rows } = await this.reads.query<{ behaviour: Behaviour; card_mask: string; card_expiry: string }>(
        'SELECT behaviour, card_mask, card_expiry FROM sim_card_tokens WHERE token = $1',
        [data.cardToken],
      );
      if (!rows[0])
        return this.record(req, 'declined', 'decline_general', { result_code: 'decline_invalid_card_number' });
      // A stored card is charged without the cardholder: no challenge, and it answers.
      behaviour =
        CHALLENGING.has(rows[0].behaviour) || rows[0].behaviour === 'no_answer' ? 'approve' : rows[0].behaviour;
      mask = rows[0].card_mask;
      expiry = rows[0].card_expiry;
      if (behaviour === 'approve_executions_declined') {
        return this.record(req, 'declined', behaviour, {
          card_mask: mask,
          card_expiry: expiry,
          result_code: EXECUTION_DECLINE_CODE,
        });
      }
    } else if (told?.delaySeconds) {
      // The customer's bank decides later: the attempt stays undecided until then (status()).
      const target: Behaviour =
        told.outcome === 'approve' ? 'approve' : ((told.declineCode ?? 'decline_general') as Behaviour);
      await this.record(req, 'delayed', target, { settle_at: new Date(now.getTime() + told.delaySeconds * 1000) });
      return { outcome: 'pending' };
    } else if (told?.outcome !== 'approve') {
      return this.record(req, 'declined', 'decline_general', { result_code: told?.declineCode ?? 'decline_general' });
    } else {
      behaviour = 'approve';
      // A wallet pays with the card in the customer's device: its mask and expiry come back like a
      // card's (and it can be tokenised for saveCard when the wallet allows it).
      if ('wallet' in data) {
        mask = maskCardNumber(WALLET_CARD);
        expiry = toMmYy({ month: 12, year: yearMonthIn(now, 'UTC').year + 3 });
      }
    }
    const card = { card_mask: mask, card_expiry: expiry };
    if (!APPROVING.has(behaviour) && !CHALLENGING.has(behaviour) && behaviour !== 'no_answer') {
      return this.record(req, 'declined', behaviour, { ...card, result_code: declineCodeOf(behaviour) });
    }
    // A card that may still be approved is tokenised now when asked, whichever way its approval comes
    // (at once, after the 3-D Secure challenge, or through status() after a lost answer): the token
    // is kept with the authorisation and handed over only with the approval.
    let token: string | null = null;
    if (req.tokenise && mask && expiry) {
      token = `simtok_${randomHex(16)}`;
      await this.db.query(
        'INSERT INTO sim_card_tokens (token, behaviour, card_mask, card_expiry, created_at) VALUES ($1, $2, $3, $4, $5)',
        [token, behaviour, mask, expiry, now],
      );
    }
    if (CHALLENGING.has(behaviour)) {
      const challengeId = randomHex(16);
      await this.record(req, 'challenge', behaviour, { ...card, card_token: token, challenge_id: challengeId });
      return { outcome: 'challenge', challengeId };
    }
    if (behaviour === 'no_answer') {
      await this.record(req, 'no_answer', behaviour, { ...card, card_token: token });
      return { outcome: 'pending' };
    }
    return this.record(req, 'approved', behaviour, { ...card, card_token: token });
  }

  async completeChallenge(challengeId: string, code: string, now?: Date): Promise<AcquirerResult> {
    await this.delay();
    // The abandoned-challenge card's ACS session is gone: whatever code comes, it is declined.
    const abandoned =
      (
        await this.db.query<{ behaviour: Behaviour }>(
          'SELECT behaviour FROM sim_authorisations WHERE challenge_id = $1',
          [challengeId],
        )
      ).rows[0]?.behaviour === '3ds_challenge_abandoned';
    const approved = code === CHALLENGE_CODE && !abandoned;
    const declineCode = abandoned ? declineCodeOf('3ds_challenge_abandoned') : 'decline_authentication_failed';
    const { rows } = await this.db.query<SimRow>(
      `UPDATE sim_authorisations SET status = $2, result_code = $3, transaction_id = $4, rrn = $5, block_days = $6, updated_at = $7
       WHERE challenge_id = $1 AND status = 'challenge' RETURNING *`,
      [
        challengeId,
        approved ? 'approved' : 'declined',
        approved ? 'approved' : declineCode,
        approved ? newTransactionId() : null,
        approved ? rrn() : null,
        approved ? DEFAULT_BLOCK_DAYS : null,
        now ?? this.clock.now(),
      ],
    );
    if (!rows[0]) return { outcome: 'declined', resultCode: 'decline_authentication_failed' };
    return toResult(rows[0]);
  }

  async status(reference: string, at?: Date): Promise<AcquirerResult> {
    await this.delay();
    const now = at ?? this.clock.now();
    const { rows } = await this.db.query<SimRow>('SELECT * FROM sim_authorisations WHERE reference = $1', [reference]);
    const row = rows[0];
    if (!row) {
      // Never reached the bank (the gateway stopped before calling it), or is still on its way (a
      // call held up by a database failover). The bank closes the reference as it answers: the
      // reconciler declines the attempt on this answer, so an authorisation arriving after it must
      // be refused too — approved, it would hold the customer's money for a payment the gateway
      // reopened (found by the failover suite: a pay answered 200 with the payment Created).
      const { rows: closed } = await this.db.query<SimRow>(
        `INSERT INTO sim_authorisations (reference, status, behaviour, result_code, amount, currency, created_at, updated_at)
         VALUES ($1, 'declined', 'decline_general', 'not_processed', 0, 'XXX', $2, $2)
         ON CONFLICT (reference) DO NOTHING RETURNING *`,
        [reference, now],
      );
      // Recorded meanwhile by the authorisation itself: its answer.
      return closed[0] ? toResult(closed[0]) : this.status(reference, now);
    }
    if (row.status === 'no_answer') {
      // The issuer did approve it; the answer was lost on the way.
      const { rows: settled } = await this.db.query<SimRow>(
        `UPDATE sim_authorisations SET status = 'approved', result_code = 'approved', transaction_id = $2, rrn = $3, block_days = $4, updated_at = $5
         WHERE reference = $1 AND status = 'no_answer' RETURNING *`,
        [reference, newTransactionId(), rrn(), DEFAULT_BLOCK_DAYS, now],
      );
      return this.status(settled[0]?.reference ?? reference, now);
    }
    if (row.status === 'delayed') {
      if (row.settle_at && row.settle_at.getTime() > now.getTime()) return { outcome: 'pending' };
      const approved = row.behaviour === 'approve';
      const { rows: settled } = await this.db.query<SimRow>(
        `UPDATE sim_authorisations SET status = $2, result_code = $3, transaction_id = $4, rrn = $5, block_days = $6, updated_at = $7
         WHERE reference = $1 AND status = 'delayed' RETURNING *`,
        [
          reference,
          approved ? 'approved' : 'declined',
          approved ? 'approved' : declineCodeOf(row.behaviour),
          approved ? newTransactionId() : null,
          approved ? rrn() : null,
          approved ? DEFAULT_BLOCK_DAYS : null,
          now,
        ],
      );
      return settled[0] ? toResult(settled[0]) : this.status(reference, now);
    }
    // A challenge left unanswered is declined once the ACS gives up: after the timeout, or at once
    // for the abandoned-challenge card (the customer has already gone).
    const abandoned = row.behaviour === '3ds_challenge_abandoned';
    if (row.status === 'challenge' && (abandoned || now.getTime() - row.created_at.getTime() >= CHALLENGE_TIMEOUT_MS)) {
      const resultCode = abandoned ? declineCodeOf(row.behaviour) : 'decline_authentication_timeout';
      await this.db.query(
        `UPDATE sim_authorisations SET status = 'declined', result_code = $3, updated_at = $2 WHERE reference = $1 AND status = 'challenge'`,
        [reference, now, resultCode],
      );
      return { outcome: 'declined', resultCode };
    }
    return toResult(row);
  }

  // The simulated issuer accepts every capture, void and refund the gateway's rules let through,
  // except on the test cards made to fail later: 0341 declines refunds and voids, 0259 declines the
  // completion (capture), and 5126 performs refunds but the answer is lost (the reconciler asks
  // again; the repeated call finds the refund done).
  async capture(_reference: string, transactionId: string): Promise<OperationAnswer> {
    await this.delay();
    return (await this.behaviourOfTransaction(transactionId)) === 'approve_capture_declined'
      ? { ok: false, resultCode: 'decline_general' }
      : { ok: true };
  }

  async void(_reference: string, transactionId: string): Promise<OperationAnswer> {
    await this.delay();
    return (await this.behaviourOfTransaction(transactionId)) === 'approve_refunds_declined'
      ? { ok: false, resultCode: 'decline_general' }
      : { ok: true };
  }

  async refund(reference: string, transactionId: string): Promise<OperationAnswer> {
    await this.delay();
    const behaviour = await this.behaviourOfTransaction(transactionId);
    if (behaviour === 'approve_refunds_declined') return { ok: false, resultCode: 'decline_general' };
    if (behaviour === 'approve_refunds_lost') {
      const { rows } = await this.db.query(
        'INSERT INTO sim_operations (reference, kind, created_at) VALUES ($1, $2, $3) ON CONFLICT (reference) DO NOTHING RETURNING reference',
        [reference, 'refund', this.clock.now()],
      );
      if (rows.length)
        throw new AcquirerNoAnswer('sandbox card 4000 0000 0000 5126: the refund was made and its answer lost');
    }
    return { ok: true };
  }

  private async behaviourOfTransaction(transactionId: string): Promise<Behaviour | null> {
    const { rows } = await this.reads.query<{ behaviour: Behaviour }>(
      'SELECT behaviour FROM sim_authorisations WHERE transaction_id = $1',
      [transactionId],
    );
    return rows[0]?.behaviour ?? null;
  }

  private async record(
    req: AuthoriseRequest,
    status: SimRow['status'],
    behaviour: Behaviour,
    extra: Partial<SimRow>,
  ): Promise<AcquirerResult> {
    const approved = status === 'approved';
    const row = {
      result_code: approved ? 'approved' : (extra.result_code ?? null),
      transaction_id: approved ? newTransactionId() : null,
      rrn: approved ? rrn() : null,
      block_days: approved ? (behaviour === 'approve_block_7' ? 7 : DEFAULT_BLOCK_DAYS) : null,
      card_token: extra.card_token ?? null,
      card_mask: extra.card_mask ?? null,
      card_expiry: extra.card_expiry ?? null,
      challenge_id: extra.challenge_id ?? null,
      settle_at: extra.settle_at ?? null,
    };
    const now = req.now ?? this.clock.now();
    const { rows } = await this.records.query<SimRow>(
      `INSERT INTO sim_authorisations (reference, status, behaviour, result_code, transaction_id, rrn, card_token, card_mask,
         card_expiry, block_days, challenge_id, amount, currency, split_iban, split_amount, settle_at, created_at, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$15,$16,$17,$14,$14)
       ON CONFLICT (reference) DO UPDATE SET updated_at = EXCLUDED.updated_at
       RETURNING *`,
      [
        req.reference,
        status,
        behaviour,
        row.result_code,
        row.transaction_id,
        row.rrn,
        row.card_token,
        row.card_mask,
        row.card_expiry,
        row.block_days,
        row.challenge_id,
        req.amount,
        req.currency,
        now,
        req.split?.iban ?? null,
        req.split?.amount ?? null,
        row.settle_at,
      ],
    );
    return toResult(rows[0]!);
  }
}

function toResult(row: SimRow): AcquirerResult {
  switch (row.status) {
    case 'approved':
      return {
        outcome: 'approved',
        transactionId: row.transaction_id!,
        rrn: row.rrn!,
        cardToken: row.card_token ?? undefined,
        cardMask: row.card_mask ?? undefined,
        cardExpiry: row.card_expiry ?? undefined,
        blockDays: row.block_days ?? DEFAULT_BLOCK_DAYS,
      };
    case 'declined':
      return { outcome: 'declined', resultCode: row.result_code ?? 'decline_general' };
    case 'challenge':
      return { outcome: 'challenge', challengeId: row.challenge_id! };
    case 'no_answer':
    case 'delayed':
      return { outcome: 'pending' };
  }
}
