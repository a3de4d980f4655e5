import { randomFillSync } from 'node:crypto';

// Entropy is drawn from the OS in 4 KiB batches: one getrandom call serves 256 identifiers, where
// randomBytes(16) per payment made it a visible share of the create path's CPU profile.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/** `bytes` fresh random bytes as lowercase hex (each byte is used once). */
export function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

/** 128 random bits, lowercase hex: unguessable and URL-safe. */
export const newPayId = () => randomHex(16);
/** Saved-card identifier, same strength as payIds. */
export const newRecId = () => randomHex(16);

const ID = /^[0-9a-f]{32}$/;
/** Cheap shape check so malformed ids never reach the database. */
export const isWellFormedId = (id: string) => ID.test(id);

/**
 * The simulator's transaction id, `sim_` and 16 hex digits. About 1 in 1,900 draws is digits
 * only, and a few of those are Luhn-valid in a card scheme's range: a card number to every
 * scanner that looks for one (the history checker found `sim_6652…0360` in a crash test). An id
 * made of digits only gets its first digit turned into a letter, so no transaction id reads as a
 * card number.
 */
export function transactionIdOf(hex: string): string {
  return `sim_${/^\d+$/.test(hex) ? String.fromCharCode(97 + ((hex.charCodeAt(0) - 48) % 6)) + hex.slice(1) : hex}`;
}
export const newTransactionId = () => transactionIdOf(randomHex(8));
