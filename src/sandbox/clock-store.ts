// The sandbox clock offsets live in the database so that every gateway process moves together:
// advancing one notifies the others (LISTEN/NOTIFY on PostgreSQL) and each process also re-reads
// them on every background tick as a safety net. There is the global offset (settings) and each
// merchant's own (merchants.clock_offset_ms, issue 15); a merchant's business time is real time plus
// both. Offsets only grow, so a late notification never moves a clock back.
import type { Clock } from '../clock.ts';
import type { Db } from '../store/db.ts';

export const CLOCK_CHANNEL = 'karibche_clock';
export const MERCHANT_CLOCK_CHANNEL = 'karibche_merchant_clock';
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
    await this.db.listen(MERCHANT_CLOCK_CHANNEL, (payload) => {
      // "<offset ms> <client id>": the client id may hold anything but a leading space.
      const space = payload.indexOf(' ');
      const ms = Number(payload.slice(0, space));
      const clientId = payload.slice(space + 1);
      if (space > 0 && Number.isSafeInteger(ms)) this.setMerchant(clientId, ms);
    });
  }

  async refresh(): Promise<void> {
    if (!this.enabled) return;
    const { rows } = await this.db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [KEY]);
    this.clock.setOffset(rows[0] ? Number(rows[0].value) : 0);
    const merchants = await this.db.query<{ client_id: string; ms: string }>(
      'SELECT client_id, clock_offset_ms::text AS ms FROM merchants WHERE clock_offset_ms > 0',
    );
    for (const r of merchants.rows) this.setMerchant(r.client_id, Number(r.ms));
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

  /** Re-reads one merchant's offset (a merchant's own clock view is exact, not a tick old). */
  async refreshMerchant(clientId: string): Promise<void> {
    if (!this.enabled) return;
    const { rows } = await this.db.query<{ ms: string }>(
      'SELECT clock_offset_ms::text AS ms FROM merchants WHERE client_id = $1',
      [clientId],
    );
    if (rows[0]) this.setMerchant(clientId, Number(rows[0].ms));
  }

  /** Moves one merchant's own clock forward; returns its new own offset in ms (null: no such merchant). */
  async advanceMerchant(clientId: string, seconds: number): Promise<number | null> {
    const { rows } = await this.db.query<{ ms: string }>(
      'UPDATE merchants SET clock_offset_ms = clock_offset_ms + $2::bigint WHERE client_id = $1 RETURNING clock_offset_ms::text AS ms',
      [clientId, seconds * 1000],
    );
    if (!rows[0]) return null;
    const offset = Number(rows[0].ms);
    this.setMerchant(clientId, offset);
    await this.db.notify(MERCHANT_CLOCK_CHANNEL, `${offset} ${clientId}`);
    return offset;
  }

  private setMerchant(clientId: string, ms: number): void {
    const c = this.clock.forMerchant(clientId);
    if (ms > c.offset) c.setOffset(ms);
  }
}
