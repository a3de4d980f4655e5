// Prometheus metrics. One registry per gateway instance (tests run several in one process). Every
// process counts what it did itself; Prometheus sums the processes. Gauges read from the database
// (the callback backlog) are computed when scraped.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'karibche_http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly paymentsCreated = new Counter({
    name: 'karibche_payments_created_total',
    help: 'Payments created',
    registers: [this.registry],
  });
  readonly paymentsExpired = new Counter({
    name: 'karibche_payments_expired_total',
    help: 'Payments expired by the sweeper',
    registers: [this.registry],
  });
  readonly paymentStatusChanges = new Counter({
    name: 'karibche_payment_status_changes_total',
    help: 'Payment status changes by the status entered, the payment method and the resultCode',
    labelNames: ['to', 'method', 'result_code'],
    registers: [this.registry],
  });
  readonly operations = new Counter({
    name: 'karibche_payment_operations_total',
    help: 'Refunds, voids and completions by kind and outcome (done, refused, no_answer)',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });
  readonly acquirerCalls = new Histogram({
    name: 'karibche_acquirer_call_duration_seconds',
    help: 'Acquirer calls by call and outcome (approved, declined, challenge, pending, ok, refused, no_answer, error)',
    labelNames: ['call', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly idempotencyConflicts = new Counter({
    name: 'karibche_idempotency_conflicts_total',
    help: 'Requests answered 409 (the key is in use) or 422 (the key was used for another request)',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly reconciliations = new Counter({
    name: 'karibche_reconciler_payments_total',
    help: 'Payments the reconciler looked at, by kind (attempt, operation) and outcome (settled, settled_elsewhere, unresolved, failed)',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });
  readonly callbackAttempts = new Counter({
    name: 'karibche_callback_attempts_total',
    help: 'Callback attempts by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly callbackLatency = new Histogram({
    name: 'karibche_callback_delivery_seconds',
    help: 'From the final-status event to the merchant answering 2xx',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 60, 600, 3600],
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'karibche_' });
  }

  /**
   * The callback backlog, read from the database at each scrape: deliveries pending (due or
   * waiting for their retry), failing (pending after at least one failed attempt), given up, and
   * the age of the oldest undelivered one.
   */
  watchCallbackBacklog(
    read: () => Promise<{
      pending: number;
      failing: number;
      failed: number;
      undeliverable: number;
      oldestSeconds: number;
    }>,
  ): void {
    let last: Promise<Awaited<ReturnType<typeof read>>> | null = null;
    // One query per scrape for the four gauges.
    const snapshot = () => (last ??= read().finally(() => setTimeout(() => (last = null), 0)));
    const gauge = (name: string, help: string, pick: (b: Awaited<ReturnType<typeof read>>) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          this.set(pick(await snapshot()));
        },
      });
    gauge('karibche_callbacks_pending', 'Callbacks not delivered yet and still being tried', (b) => b.pending);
    gauge('karibche_callbacks_failing', 'Pending callbacks whose last attempt failed', (b) => b.failing);
    gauge('karibche_callbacks_failed', 'Callbacks given up after 3 days of retries', (b) => b.failed);
    gauge('karibche_callbacks_undeliverable', 'Callbacks with no URL to go to', (b) => b.undeliverable);
    gauge(
      'karibche_callbacks_oldest_pending_seconds',
      'Age of the oldest callback still pending',
      (b) => b.oldestSeconds,
    );
  }

  /** A gauge set from `read()` at each scrape. */
  private gaugeOf(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** A counter whose total is a process-local count read at each scrape (it only grows). */
  private counterOf(name: string, help: string, read: () => number): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  }

  /** The database connection pool (PostgreSQL): where requests queue when every connection is busy. */
  watchPool(read: () => { total: number; idle: number; waiting: number }): void {
    this.gaugeOf('karibche_db_pool_connections', 'Database connections open', () => read().total);
    this.gaugeOf('karibche_db_pool_idle', 'Database connections open and idle', () => read().idle);
    this.gaugeOf(
      'karibche_db_pool_waiting',
      'Queries and transactions waiting for a database connection',
      () => read().waiting,
    );
  }

  /** Counters read from fields of a process-local count at each scrape: [name, help, field]. */
  private countersOf<T extends Record<string, number>>(read: () => T, counters: [string, string, keyof T][]): void {
    for (const [name, help, field] of counters) this.counterOf(name, help, () => read()[field] ?? 0);
  }

  /** The group commit of state changes: transactions and the statements they carried. */
  watchGroupCommit(read: () => { transactions: number; statements: number }): void {
    this.countersOf(read, [
      [
        'karibche_group_commit_transactions_total',
        "Transactions of the state changes' group commit (a statement alone counts as one)",
        'transactions',
      ],
      [
        'karibche_group_commit_statements_total',
        "Statements of the state changes' group commit (statements per commit = this / transactions)",
        'statements',
      ],
    ]);
  }

  /** The shared reads (src/store/shared-reads.ts): batches sent and the reads they carried. */
  watchSharedReads(read: () => { batches: number; statements: number }): void {
    this.countersOf(read, [
      ['karibche_shared_reads_batches_total', 'Batches of shared reads sent (one write each)', 'batches'],
      [
        'karibche_shared_reads_statements_total',
        'Reads sent in the shared reads’ batches (reads per write = this / batches)',
        'statements',
      ],
    ]);
  }

  /** Create's group commit: statements written and the payments they carried (rows per statement
   * = rows / statements; read from the batcher's own counters when scraped). */
  watchPaymentInserts(read: () => { statements: number; items: number }): void {
    this.countersOf(read, [
      ['karibche_payment_insert_statements_total', "INSERT statements of create's group commit", 'statements'],
      [
        'karibche_payment_insert_rows_total',
        "Payments written by create's group commit (rows per statement = this / statements)",
        'items',
      ],
    ]);
  }
}
