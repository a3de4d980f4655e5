// Dashboard passwords, stored as scrypt (node:crypto, RFC 7914) with a random salt per password:
// N = 2^15, r = 8, p = 1 — 32 MiB and ~90 ms per check on the reference machine, which makes an
// offline guess at a stolen table slow. The parameters are stored with each hash, so they can be
// raised later without locking anyone out (a hash with other parameters still verifies).
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

export const PASSWORD_LIMITS = { min: 12, max: 200 } as const;

function scrypt(password: string, salt: Buffer, p: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is just below that for N = 2^15.
  const options: ScryptOptions = { ...p, maxmem: 256 * p.N * p.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$key` (salt and key base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True when the password matches the stored hash (constant-time comparison of the keys). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((x) => Number.isSafeInteger(x) && x > 0)) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), params);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A password hash no password matches: checked against when the account is unknown, so that a
 * wrong email takes as long as a wrong password (no way to tell which accounts exist by timing). */
export const UNMATCHABLE_HASH = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${randomBytes(SALT_BYTES).toString('base64url')}$${randomBytes(KEY_BYTES).toString('base64url')}`;

/** A generated password: 20 characters, 120 random bits. */
export const newPassword = () => randomBytes(15).toString('base64url');

/** Why a chosen password cannot be used, or null. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_LIMITS.min || length > PASSWORD_LIMITS.max)
    return `must be ${PASSWORD_LIMITS.min} to ${PASSWORD_LIMITS.max} characters`;
  return null;
}
