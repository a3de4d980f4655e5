// One per gateway process: wakes the open event streams of a merchant when the database says one
// of its payments changed (LISTEN on the channel the payment_events trigger notifies, the same
// machinery the callback dispatcher uses), keeps the trigger's notifications switched on while
// streams are open, and ends every stream when the gateway stops.
import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import { EVENTS_CHANNEL, renewStreamInterest } from './store.ts';

/** Streams one merchant may keep open on one process. */
export const MAX_STREAMS_PER_MERCHANT = 10;
/** The trigger notifies for this long after each renewal; renewed at a third of it. */
const INTEREST_SECONDS = 60;

export interface StreamHandle {
  /** Called on every change of the merchant's payments (possibly several times for one). */
  wake(): void;
  /** The gateway is stopping: end the stream now. */
  close(): void;
}

export class EventHub {
  private readonly streams = new Map<string, Set<StreamHandle>>();
  private listening: Promise<void> | null = null;
  private renewal: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  count(clientId: string): number {
    return this.streams.get(clientId)?.size ?? 0;
  }

  /**
   * Registers a stream; resolves once notifications for its merchant are on, so that a change
   * committed after this resolves wakes it. Returns the function that unregisters it.
   */
  async open(clientId: string, handle: StreamHandle): Promise<() => void> {
    if (this.closed) throw new Error('the gateway is stopping');
    let set = this.streams.get(clientId);
    if (!set) this.streams.set(clientId, (set = new Set()));
    set.add(handle);
    const remove = () => {
      set.delete(handle);
      if (set.size === 0) this.streams.delete(clientId);
      if (this.streams.size === 0 && this.renewal) {
        clearInterval(this.renewal);
        this.renewal = null;
      }
    };
    try {
      this.listening ??= this.db.listen(EVENTS_CHANNEL, (payload) => this.wake(payload));
      await this.listening;
      if (!this.renewal) {
        await renewStreamInterest(this.db, INTEREST_SECONDS);
        this.renewal = setInterval(
          () => {
            renewStreamInterest(this.db, INTEREST_SECONDS).catch((err) =>
              this.log.warn({ err }, 'event stream interest not renewed'),
            );
          },
          (INTEREST_SECONDS * 1000) / 3,
        );
        this.renewal.unref();
      }
    } catch (err) {
      this.listening = null;
      remove();
      throw err;
    }
    return remove;
  }

  private wake(clientId: string): void {
    for (const h of this.streams.get(clientId) ?? []) h.wake();
  }

  /** Ends every open stream (the gateway's graceful stop must not wait for them). */
  close(): void {
    this.closed = true;
    if (this.renewal) clearInterval(this.renewal);
    for (const set of this.streams.values()) for (const h of [...set]) h.close();
  }
}
