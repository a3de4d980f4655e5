// The long-lived pieces one gateway process shares between its HTTP routes and background work.
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { Acquirer } from './acquirer/acquirer.ts';
import type { TokenService } from './api/tokens.ts';
import type { CallbackDispatcher } from './callbacks/dispatcher.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { MerchantDirectory } from './merchants/directory.ts';
import type { Merchant } from './merchants/merchant.ts';
import type { Metrics } from './ops/metrics.ts';
import type { PaymentInserts } from './payments/deps.ts';
import type { ExpirySweeper } from './payments/expiry.ts';
import type { SharedClock } from './sandbox/clock-store.ts';
import type { Db, Queryable } from './store/db.ts';

export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  sharedClock: SharedClock;
  merchants: MerchantDirectory;
  tokens: TokenService;
  sweeper: ExpirySweeper;
  metrics: Metrics;
  acquirer: Acquirer;
  callbacks: CallbackDispatcher;
  /** Create's group commit of new payments. */
  inserts: PaymentInserts;
  /** Group commit of single-statement state changes (attempts, the sandbox acquirer's records). */
  groupCommit: Queryable;
  /** Where a request's first read of a payment goes: shared connections under load (src/store/shared-reads.ts). */
  reads: Queryable;
  /** Secret for checkout CSRF tokens and QR links, shared by every process through the database. */
  checkoutSecret: Buffer;
  log: Logger;
}

/**
 * The services as one request sees them: its own log, so every line carries the request id, and
 * the business clock of the merchant the request acts for (`clientId`, by default the merchant
 * that authenticated it) — a merchant may have a sandbox clock of its own (issue 15).
 */
export const forRequest = (
  s: Services,
  request: { log: FastifyBaseLogger; merchant?: Merchant },
  clientId: string | undefined = request.merchant?.clientId,
): Services => ({
  ...s,
  // Fastify was given our pino logger (app.ts): a request's log is that logger's child.
  log: request.log as unknown as Logger,
  clock: clientId === undefined ? s.clock : s.clock.forMerchant(clientId),
});

/** The services on one merchant's business clock (background work about that merchant's payments). */
export const forMerchant = <T extends { clock: Clock }>(s: T, clientId: string): T => ({
  ...s,
  clock: s.clock.forMerchant(clientId),
});
