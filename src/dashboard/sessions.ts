// Dashboard sessions. A sign-in makes a new random session id (so a session id planted before the
// sign-in is worthless), sent to the browser in an HttpOnly, SameSite=Strict cookie and stored only
// as its SHA-256 (like API keys). A session ends when idle for dashboardIdleMinutes or
// dashboardSessionHours after sign-in, on real time — the sandbox clock's time travel never signs
// anyone out or in — and at sign-out, which deletes it.
import { randomBytes } from 'node:crypto';
import { hashSecret } from '../merchants/credentials.ts';
import type { Db } from '../store/db.ts';
import {
  deleteEndedSessions,
  deleteSession,
  insertSession,
  selectSession,
  touchSession,
  type SessionRow,
} from './session-store.ts';

export const SESSION_COOKIE = 'kb_dash';

/** A session's last activity is written at most this often (not on every request). */
const TOUCH_EVERY_MS = 60_000;

export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

export type ActiveSession = SessionRow;

export class Sessions {
  constructor(
    private readonly db: Db,
    readonly limits: SessionLimits,
    /** Real time (tests may stand in another source). */
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts a session for the user; returns the cookie value (the session id). Ended sessions of
   * anyone are deleted on the way (sign-ins are rare enough to carry the housekeeping). */
  async start(userId: number): Promise<string> {
    await this.prune();
    const id = randomBytes(32).toString('base64url');
    const now = this.now();
    await insertSession(this.db, hashSecret(id), userId, new Date(now), new Date(now + this.limits.absoluteMs));
    return id;
  }

  /** The live session this cookie names, or null (none, malformed, ended — an ended one is deleted). */
  async find(cookie: string | undefined): Promise<ActiveSession | null> {
    if (!cookie || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) return null;
    const idHash = hashSecret(cookie);
    const row = await selectSession(this.db, idHash);
    if (!row) return null;
    const now = this.now();
    if (now >= row.expires_at.getTime() || now - row.last_seen_at.getTime() >= this.limits.idleMs) {
      await deleteSession(this.db, idHash);
      return null;
    }
    if (now - row.last_seen_at.getTime() >= TOUCH_EVERY_MS) await touchSession(this.db, idHash, new Date(now));
    return row;
  }

  async end(idHash: string): Promise<void> {
    await deleteSession(this.db, idHash);
  }

  /** Deletes every ended session (housekeeping). */
  prune(): Promise<number> {
    const now = this.now();
    return deleteEndedSessions(this.db, new Date(now), new Date(now - this.limits.idleMs));
  }
}
