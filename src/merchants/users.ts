// A merchant's dashboard users: created by the operator (admin API, CLI) with a chosen password or
// a generated one shown once; a sign-in checks the password against its scrypt hash.
import { ERRORS } from '../errors/catalogue.ts';
import { Violations, gatewayError } from '../errors/gateway-error.ts';
import type { Db } from '../store/db.ts';
import { hashPassword, newPassword, passwordProblem, UNMATCHABLE_HASH, verifyPassword } from './passwords.ts';
import { insertUser, selectUserByEmail, type UserRow } from './user-store.ts';

export interface DashboardUser {
  id: number;
  clientId: string;
  email: string;
  createdAt: Date;
}

const EMAIL_MAX = 254;
/** Deliberately loose (RFC 5321 allows far more than any check gets right): one @, no spaces, a dot in the domain. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** The email as stored and looked up (trimmed, lower case), or null when it is not an address. */
export function normaliseEmail(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const email = raw.trim().toLowerCase();
  return email.length <= EMAIL_MAX && EMAIL.test(email) ? email : null;
}

const userOf = (r: UserRow): DashboardUser => ({
  id: r.id,
  clientId: r.client_id,
  email: r.email,
  createdAt: r.created_at,
});

/**
 * Creates a user of the merchant (which the caller has found). Without a password one is generated
 * and returned — the only time it can be read.
 */
export async function createUser(
  db: Db,
  clientId: string,
  input: { email?: unknown; password?: unknown },
): Promise<{ user: DashboardUser; password: string | null }> {
  const v = new Violations();
  const email = normaliseEmail(input.email);
  if (!email) v.add('email', `must be an email address of at most ${EMAIL_MAX} characters`);
  const chosen =
    input.password === undefined || input.password === null || input.password === '' ? null : input.password;
  if (chosen !== null) {
    const problem = typeof chosen === 'string' ? passwordProblem(chosen) : 'must be a string';
    if (problem) v.add('password', problem);
  }
  v.throwIfAny();
  const password = (chosen as string | null) ?? newPassword();
  // Real time: an account's dates are not business time (the sandbox clock does not move them).
  const row = await insertUser(db, clientId, email!, await hashPassword(password), new Date());
  if (!row) throw gatewayError(ERRORS.userExists, { detail: `A dashboard user ${email} exists already` });
  return { user: userOf(row), password: chosen === null ? password : null };
}

/**
 * The user whose email and password these are, or null. Always runs one scrypt check, also for an
 * unknown email, so the answer's timing does not tell which emails have accounts.
 */
export async function checkCredentials(db: Db, email: string | null, password: string): Promise<DashboardUser | null> {
  const row = email ? await selectUserByEmail(db, email) : null;
  const ok = await verifyPassword(password, row?.password_hash ?? UNMATCHABLE_HASH);
  return row && ok ? userOf(row) : null;
}
