// The sandbox clock offset lives in the database so that every gateway process moves together:
// advancing it notifies the others (LISTEN/NOTIFY on PostgreSQL) and each process also re-reads it
// on every background tick as a safety net.
import type { Clock } from '../clock.ts';
import type { Db } from '../store/db.ts';

export const CLOCK_CHANNEL = 'karibche_clock';
const KEY = 'clock_offset_ms';

export class SharedClock {
  constructor(
    private readonly db: Db,
    readonly clock: Clock,
    private readonly enabled: boolean,
  ) {}

  async start(): Promise<void> {
    if (!this.enabled) return;
    await this.refresh();
    await this.db.listen(CLOCK_CHANNEL, (payload) => {
      const ms = Number(payload);
      // Offsets only grow: never step back because of a notification that arrived late.
      if (Number.isSafeInteger(ms) && ms > this.clock.offset) this.clock.setOffset(ms);
    });
  }

  async refresh(): Promise<void> {
    if (!this.enabled) return;
    const { rows } = await this.db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [KEY]);
    this.clock.setOffset(rows[0] ? Number(rows[0].value) : 0);
  }

  /** Moves the shared clock forward; returns the new offset in milliseconds. */
  async advance(seconds: number): Promise<number> {
    const { rows } = await this.db.query<{ value: string }>(
      `INSERT INTO settings (key, value) VALUES ($1, $2::bigint::text)
       ON CONFLICT (key) DO UPDATE SET value = (settings.value::bigint + $2::bigint)::text
       RETURNING value`,
      [KEY, seconds * 1000],
    );
    const offset = Number(rows[0]!.value);
    this.clock.setOffset(offset);
    await this.db.notify(CLOCK_CHANNEL, String(offset));
    return offset;
  }
}
