// The sandbox acquirer: answers like an issuer would for the test cards, keeps its books in the
// database (so a restart or another gateway process sees the same acquirer), tokenises cards, runs
// 3-D Secure challenges, and has a card that never answers. It never stores a card number.
import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { maskCardNumber, toMmYy } from '../payments/card.ts';
import { yearMonthIn } from '../payments/text.ts';
import { randomHex } from '../payments/ids.ts';
import type { Db } from '../store/db.ts';
import { DEFAULT_BLOCK_DAYS, type Acquirer, type AcquirerResult, type AuthoriseRequest, type OperationAnswer } from './acquirer.ts';
import { CHALLENGE_CODE, WALLET_CARD, WALLET_METHODS, behaviourOf, type Behaviour } from './test-cards.ts';

/** A challenge the cardholder leaves unanswered this long is declined. */
export const CHALLENGE_TIMEOUT_MS = 10 * 60_000;

interface SimRow {
  reference: string;
  status: 'challenge' | 'no_answer' | 'approved' | 'declined';
  behaviour: Behaviour;
  result_code: string | null;
  transaction_id: string | null;
  rrn: string | null;
  card_token: string | null;
  card_mask: string | null;
  card_expiry: string | null;
  block_days: number | null;
  challenge_id: string | null;
  created_at: Date;
}

const rrn = () => String(randomInt(1e11, 1e12));

export class SimulatorAcquirer implements Acquirer {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly latencyMs = 0,
  ) {}

  private async delay(): Promise<void> {
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
  }

  async authorise(req: AuthoriseRequest): Promise<AcquirerResult> {
    await this.delay();
    let behaviour: Behaviour;
    let mask: string | null = null;
    let expiry: string | null = null;
    if (req.card) {
      behaviour = behaviourOf(req.card.number);
      mask = maskCardNumber(req.card.number);
      expiry = toMmYy({ month: req.card.expMonth, year: req.card.expYear });
    } else if (req.cardToken) {
      const { rows } = await this.db.query<{ behaviour: Behaviour; card_mask: string; card_expiry: string }>(
        'SELECT behaviour, card_mask, card_expiry FROM sim_card_tokens WHERE token = $1',
        [req.cardToken],
      );
      if (!rows[0]) return this.record(req, 'declined', 'decline_general', { result_code: 'decline_invalid_card_number' });
      // A stored card is charged without the cardholder: no challenge, and it answers.
      behaviour = rows[0].behaviour === 'challenge' || rows[0].behaviour === 'no_answer' ? 'approve' : rows[0].behaviour;
      mask = rows[0].card_mask;
      expiry = rows[0].card_expiry;
    } else if (req.walletOutcome !== 'approve') {
      return this.record(req, 'declined', 'decline_general', { result_code: req.declineCode ?? 'decline_general' });
    } else {
      behaviour = 'approve';
      // A wallet pays with the card in the customer's device: its mask and expiry come back like a
      // card's (and it can be tokenised for saveCard when the wallet allows it).
      if (WALLET_METHODS.has(req.method)) {
        mask = maskCardNumber(WALLET_CARD);
        expiry = toMmYy({ month: 12, year: yearMonthIn(this.clock.now(), 'UTC').year + 3 });
      }
    }
    const card = { card_mask: mask, card_expiry: expiry };

    if (behaviour === 'challenge') {
      const challengeId = randomHex(16);
      await this.record(req, 'challenge', behaviour, { ...card, challenge_id: challengeId });
      return { outcome: 'challenge', challengeId };
    }
    if (behaviour === 'no_answer') {
      await this.record(req, 'no_answer', behaviour, card);
      return { outcome: 'pending' };
    }
    if (behaviour !== 'approve' && behaviour !== 'approve_block_7') {
      return this.record(req, 'declined', behaviour, { ...card, result_code: behaviour });
    }
    let token: string | null = null;
    if (req.tokenise && mask && expiry) {
      token = `simtok_${randomHex(16)}`;
      await this.db.query('INSERT INTO sim_card_tokens (token, behaviour, card_mask, card_expiry, created_at) VALUES ($1, $2, $3, $4, $5)', [
        token,
        behaviour,
        mask,
        expiry,
        this.clock.now(),
      ]);
    }
    return this.record(req, 'approved', behaviour, { ...card, card_token: token });
  }

  async completeChallenge(challengeId: string, code: string): Promise<AcquirerResult> {
    await this.delay();
    const approved = code === CHALLENGE_CODE;
    const { rows } = await this.db.query<SimRow>(
      `UPDATE sim_authorisations SET status = $2, result_code = $3, transaction_id = $4, rrn = $5, block_days = $6, updated_at = $7
       WHERE challenge_id = $1 AND status = 'challenge' RETURNING *`,
      [challengeId, approved ? 'approved' : 'declined', approved ? 'approved' : 'decline_authentication_failed', approved ? `sim_${randomHex(8)}` : null, approved ? rrn() : null, approved ? DEFAULT_BLOCK_DAYS : null, this.clock.now()],
    );
    if (!rows[0]) return { outcome: 'declined', resultCode: 'decline_authentication_failed' };
    return toResult(rows[0]);
  }

  async status(reference: string): Promise<AcquirerResult> {
    await this.delay();
    const { rows } = await this.db.query<SimRow>('SELECT * FROM sim_authorisations WHERE reference = $1', [reference]);
    const row = rows[0];
    // Never reached the acquirer (the gateway stopped before calling it): nothing was charged.
    if (!row) return { outcome: 'declined', resultCode: 'not_processed' };
    if (row.status === 'no_answer') {
      // The issuer did approve it; the answer was lost on the way.
      const { rows: settled } = await this.db.query<SimRow>(
        `UPDATE sim_authorisations SET status = 'approved', result_code = 'approved', transaction_id = $2, rrn = $3, block_days = $4, updated_at = $5
         WHERE reference = $1 AND status = 'no_answer' RETURNING *`,
        [reference, `sim_${randomHex(8)}`, rrn(), DEFAULT_BLOCK_DAYS, this.clock.now()],
      );
      return this.status(settled[0]?.reference ?? reference);
    }
    if (row.status === 'challenge' && this.clock.nowMs() - row.created_at.getTime() >= CHALLENGE_TIMEOUT_MS) {
      await this.db.query(
        `UPDATE sim_authorisations SET status = 'declined', result_code = 'decline_authentication_timeout', updated_at = $2 WHERE reference = $1 AND status = 'challenge'`,
        [reference, this.clock.now()],
      );
      return { outcome: 'declined', resultCode: 'decline_authentication_timeout' };
    }
    return toResult(row);
  }

  // The simulated issuer accepts every capture, void and refund the gateway's rules let through.
  async capture(): Promise<OperationAnswer> {
    await this.delay();
    return { ok: true };
  }

  async void(): Promise<OperationAnswer> {
    await this.delay();
    return { ok: true };
  }

  async refund(): Promise<OperationAnswer> {
    await this.delay();
    return { ok: true };
  }

  private async record(req: AuthoriseRequest, status: SimRow['status'], behaviour: Behaviour, extra: Partial<SimRow>): Promise<AcquirerResult> {
    const approved = status === 'approved';
    const row = {
      result_code: approved ? 'approved' : (extra.result_code ?? null),
      transaction_id: approved ? `sim_${randomHex(8)}` : null,
      rrn: approved ? rrn() : null,
      block_days: approved ? (behaviour === 'approve_block_7' ? 7 : DEFAULT_BLOCK_DAYS) : null,
      card_token: extra.card_token ?? null,
      card_mask: extra.card_mask ?? null,
      card_expiry: extra.card_expiry ?? null,
      challenge_id: extra.challenge_id ?? null,
    };
    const now = this.clock.now();
    const { rows } = await this.db.query<SimRow>(
      `INSERT INTO sim_authorisations (reference, status, behaviour, result_code, transaction_id, rrn, card_token, card_mask,
         card_expiry, block_days, challenge_id, amount, currency, split_iban, split_amount, created_at, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$15,$16,$14,$14)
       ON CONFLICT (reference) DO UPDATE SET updated_at = EXCLUDED.updated_at
       RETURNING *`,
      [req.reference, status, behaviour, row.result_code, row.transaction_id, row.rrn, row.card_token, row.card_mask, row.card_expiry, row.block_days, row.challenge_id, req.amount, req.currency, now, req.split?.iban ?? null, req.split?.amount ?? null],
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
      return { outcome: 'pending' };
  }
}
