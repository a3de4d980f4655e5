// In-memory view of merchants and API keys, so authenticating a request costs no database round
// trip. Changes made through the admin API invalidate it in this process at once and in every
// other process through a notification; a short TTL is the safety net if a notification is lost.
import type { Db } from '../store/db.ts';
import { hashSecret } from './credentials.ts';
import type { Merchant } from './merchant.ts';
import { selectClientIdByApiKeyHash, selectMerchant } from './store.ts';

export const MERCHANT_CHANNEL = 'karibche_merchants';

interface Entry<T> {
  value: Promise<T>;
  expires: number;
}

export class MerchantDirectory {
  private readonly merchants = new Map<string, Entry<Merchant | null>>();
  private readonly keys = new Map<string, Entry<string | null>>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 50_000,
  ) {}

  async start(): Promise<void> {
    await this.db.listen(MERCHANT_CHANNEL, (clientId) => this.forget(clientId));
  }

  byId(clientId: string): Promise<Merchant | null> {
    return this.cached(this.merchants, clientId, () => selectMerchant(this.db, clientId));
  }

  async byApiKey(apiKey: string): Promise<Merchant | null> {
    // Looked up by the key as presented: its SHA-256 (what the database keeps) is computed only on
    // a miss, not on every request (2% of create-payment's CPU). The map lives in this process's
    // memory only, where every request's headers are anyway, for at most the TTL.
    const clientId = await this.cached(this.keys, apiKey, () =>
      selectClientIdByApiKeyHash(this.db, hashSecret(apiKey)),
    );
    return clientId ? this.byId(clientId) : null;
  }

  /** Call after changing a merchant: drops it here and tells the other processes. */
  async changed(clientId: string): Promise<void> {
    this.forget(clientId);
    await this.db.notify(MERCHANT_CHANNEL, clientId);
  }

  private forget(clientId: string): void {
    this.merchants.delete(clientId);
    // Key → merchant mappings never change owner, but a revoked key must stop working: drop them all.
    this.keys.clear();
  }

  private cached<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = map.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (map.size >= this.maxEntries) map.clear();
    const value = load();
    const entry = { value, expires: now + this.ttlMs };
    map.set(key, entry);
    // A failed load (database down) must not stay cached.
    value.catch(() => map.get(key) === entry && map.delete(key));
    return value;
  }
}
