// Text helpers of the payment rules (pure).
import { dateFormat } from '../clock.ts';

// Characters that Windows-1252 maps its 0x80–0x9F bytes to (the five undefined bytes are absent).
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/**
 * "ANSI symbols only": every character must be a printable character of Windows-1252 —
 * printable ASCII, Latin-1 from U+00A0, or one of CP1252's extra characters. No control characters.
 */
export function isAnsiPrintable(text: string): boolean {
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x20 && code <= 0x7e) continue;
    if (code >= 0xa0 && code <= 0xff) continue;
    if (CP1252_EXTRA.has(ch)) continue;
    return false;
  }
  return true;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** C0 and C1 control characters (tab and newline included). */
export const hasControlCharacter = (text: string) => CONTROL.test(text);

/** No lone UTF-16 surrogates: the text survives UTF-8 storage exactly as given. */
export const isWellFormedText = (text: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/** Length in user-visible characters (code points), so Georgian text counts one per letter. */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Absolute http(s) URL check. */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

const MMYY = /^(\d{2})(\d{2})$/;

/** Parses MMYY into {year, month}; null when malformed or the month is not 01–12. */
export function parseMmYy(text: string): { year: number; month: number } | null {
  const m = MMYY.exec(text);
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  return { year: 2000 + Number(m[2]), month };
}

/** Year and month (1–12) of an instant in a time zone. */
export function yearMonthIn(date: Date, timeZone: string): { year: number; month: number } {
  const parts = dateFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit' }).formatToParts(date);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return { year: get('year'), month: get('month') };
}

/** True when {year, month} is before the current month (in the given time zone). */
export function isMonthInPast(ym: { year: number; month: number }, now: Date, timeZone: string): boolean {
  const cur = yearMonthIn(now, timeZone);
  return ym.year < cur.year || (ym.year === cur.year && ym.month < cur.month);
}
