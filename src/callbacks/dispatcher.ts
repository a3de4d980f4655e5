// Delivers callbacks from the outbox (callback_deliveries) at least once. Woken by the commit
// notification of a new event, with polling as the safety net; every process runs one, and the
// SKIP LOCKED claim with a lease keeps them from sending the same attempt twice at once.
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { MerchantDirectory } from '../merchants/directory.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Db, Queryable } from '../store/db.ts';
import { callbackTarget } from './addresses.ts';
import { callbackId } from './ids.ts';
import { sendCallback, sendOptionsFor, type SendResult } from './send.ts';
import { activeSecrets } from './signature.ts';
import { AttemptRecorder } from './recorder.ts';
import { CALLBACK_CHANNEL, claimDue, type Claimed } from './store.ts';

export interface DispatcherDeps {
  db: Db;
  clock: Clock;
  config: Config;
  merchants: MerchantDirectory;
  metrics: Metrics;
  log: Logger;
}

/** First wait after a failed claim; doubled on each further failure, up to the poll interval. */
const CLAIM_RETRY_MS = 100;
/** Connections of the dispatcher's own: a claim and a batch of records at the same time. */
const DISPATCHER_CONNECTIONS = 2;

export class CallbackDispatcher {
  private inFlight = new Set<Promise<void>>();
  private running = false;
  private wake: (() => void) | null = null;
  /** A nudge that came while no one was asleep to hear it (the loop was claiming). */
  private nudged = false;
  private loop: Promise<void> | null = null;
  private readonly leaseSeconds: number;
  private readonly recorder: AttemptRecorder;
  /** Claims and records go through connections of their own, not behind the requests queued for the pool. */
  readonly q: Queryable;

  constructor(private readonly s: DispatcherDeps) {
    // Long enough for the request's own deadline and the bookkeeping after it.
    this.leaseSeconds = Math.ceil(s.config.callbackTimeoutMs / 1000) + 5;
    this.q = s.db.ownPool(DISPATCHER_CONNECTIONS);
    this.recorder = new AttemptRecorder(this.q, s.clock);
  }

  async start(): Promise<void> {
    this.running = true;
    await this.s.db.listen(CALLBACK_CHANNEL, () => this.nudge());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  /** Asleep until a notification or the next poll, nothing in flight (tests wait for this rather than sleep). */
  get idle(): boolean {
    return this.wake !== null && this.inFlight.size === 0;
  }

  nudge(): void {
    if (this.wake) this.wake();
    else this.nudged = true;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.nudged = false;
      try {
        await this.fill();
        failures = 0;
      } catch (err) {
        failures++;
        this.s.log.warn({ err, failures }, 'callback claim failed');
      }
      // A notification that arrived during the claim may be for a row the claim could not see yet.
      if (!this.running) break;
      if (this.nudged) continue;
      // The notifications for the rows a failed claim missed have been spent: try again soon
      // rather than at the next poll, backing off while the database stays away.
      const waitMs =
        failures === 0
          ? this.s.config.callbackPollMs
          : Math.min(this.s.config.callbackPollMs, CLAIM_RETRY_MS * 2 ** Math.min(failures - 1, 8));
      // stop() while claiming only sets `nudged`: it is checked above, so close never waits a poll.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Claims as many due deliveries as there is room for and starts sending them. */
  private async fill(): Promise<number> {
    const room = this.s.config.callbackConcurrency - this.inFlight.size;
    if (room <= 0) return 0;
    // The global time: each delivery is due on its merchant's clock (claimDue adds the offset).
    const claimed = await claimDue(this.q, this.s.clock.base.now(), room, this.leaseSeconds);
    for (const c of claimed) {
      const p: Promise<void> = this.deliver(c)
        .catch((err) => this.s.log.error({ err, payId: c.pay_id }, 'callback delivery failed to record'))
        .finally(() => {
          this.inFlight.delete(p);
          this.nudge();
        });
      this.inFlight.add(p);
    }
    return claimed.length;
  }

  /** Delivers everything due now and waits for it (tests, and `clock advance` in the sandbox). */
  async drain(): Promise<void> {
    for (;;) {
      const n = await this.fill();
      if (n === 0 && this.inFlight.size === 0) return;
      await Promise.race([...this.inFlight, new Promise((r) => setTimeout(r, 5))]);
    }
  }

  private async deliver(c: Claimed): Promise<void> {
    const { config } = this.s;
    const clock = this.s.clock.forMerchant(c.client_id);
    const merchant = await this.s.merchants.byId(c.client_id);
    const startedAt = clock.now();
    const refused = (error: string): SendResult => ({ httpStatus: null, error, excerpt: null, durationMs: 0 });
    // Where it goes is decided as redelivery decides it (callbackTarget): the URL the delivery was
    // made for while the merchant's registered addresses still accept it, else the merchant's
    // default URL, else nowhere.
    const url = merchant ? callbackTarget({ callback_url: c.url }, merchant) : null;
    const result = !merchant
      ? refused('merchant not found')
      : !url
        ? refused(
            'the callback URL is no longer under a registered callback address of the merchant, and no default URL is',
          )
        : await sendCallback(
            url,
            c.pay_id,
            // The signature's timestamp is transport freshness: real time, even when the sandbox clock moved.
            {
              callbackId: callbackId(c.event_id),
              sequence: c.seq,
              secrets: activeSecrets(merchant, this.s.clock.now()), // rotation overlaps run on the gateway clock
              timestamp: Math.floor(Date.now() / 1000),
              bare: merchant.profile === 'bank',
            },
            sendOptionsFor(config),
          );
    const delivered = result.httpStatus !== null && result.httpStatus >= 200 && result.httpStatus < 300;
    const status = await this.recorder.record({
      eventId: c.event_id,
      payId: c.pay_id,
      attempt: c.attempts,
      url: url ?? c.url,
      startedAt,
      durationMs: result.durationMs,
      httpStatus: result.httpStatus,
      error: result.error,
      excerpt: result.excerpt,
      delivered,
    });
    this.s.metrics.callbackAttempts.inc({
      outcome: delivered ? 'delivered' : status === 'failed' ? 'failed' : 'retry',
    });
    if (delivered) this.s.metrics.callbackLatency.observe(Math.max(0, clock.nowMs() - c.created_at.getTime()) / 1000);
    if (!delivered) {
      this.s.log.warn(
        {
          event: 'callback.failed',
          payId: c.pay_id,
          clientId: c.client_id,
          callbackId: callbackId(c.event_id),
          url: url ?? c.url,
          attempt: c.attempts,
          httpStatus: result.httpStatus,
          error: result.error,
          next: status,
        },
        'callback not delivered',
      );
    }
  }
}
