// What the payment use cases need from the process: the database, business time, the acquirer, the
// rules' configuration and a log. No HTTP, no framework.
import type { Logger } from 'pino';
import type { Acquirer } from '../acquirer/acquirer.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Merchant } from '../merchants/merchant.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Db, Queryable } from '../store/db.ts';
import type { RuleContext } from './rules/policy.ts';
import type { InsertPayment } from './store.ts';

/** Where create's new payments are written: one statement for many requests under load. */
export interface PaymentInserts {
  add(row: InsertPayment): Promise<void>;
}

export interface PaymentDeps {
  db: Db;
  /** Create's group commit (src/store/batcher.ts); without it each payment is its own statement. */
  inserts?: PaymentInserts;
  /**
   * Where single-statement state changes go (an attempt begun, its outcome applied): one
   * transaction for the concurrent ones under load (src/store/group-commit.ts); without it, `db`.
   */
  groupCommit?: Queryable;
  /** Where a first read of a payment goes (src/store/shared-reads.ts); without it, `db`. */
  reads?: Queryable;
  clock: Clock;
  acquirer: Acquirer;
  /** The request's own log when there is a request (its id on every line), else the process's. */
  log: Logger;
  metrics?: Metrics;
  config: Pick<
    Config,
    'mode' | 'maxAmountMinor' | 'bankCode' | 'timeZone' | 'maxAttempts' | 'operationWaitMs' | 'reconcileAfterSeconds'
  >;
}

/** The context a request's rules are checked in: the merchant, the policy's configuration, now. */
export function ruleContext(s: Pick<PaymentDeps, 'clock' | 'config'>, merchant: Merchant): RuleContext {
  return {
    merchant,
    maxAmountMinor: s.config.maxAmountMinor,
    bankCode: s.config.bankCode,
    now: s.clock.now(),
    timeZone: s.config.timeZone,
    production: s.config.mode === 'production',
  };
}
