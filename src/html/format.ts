// Amounts and dates as the checkout's and the dashboard's readers see them, in the page's language.
// Amounts are formatted from the integer minor units through their decimal string (formatMinor),
// never through a floating-point number: digits are grouped in threes with the language's
// separators — "1,249.90 GEL" in English, "1 249,90 GEL" in Georgian (a no-break space, as Georgian
// writes it). The currency code follows the number after a no-break space, so an amount never wraps
// inside a table cell or a button.
import { dateFormat } from '../clock.ts';
import { formatMinor } from '../payments/money.ts';

/** What formatting needs of a page's texts: its locale ("en-GB", "ka-GE"). */
interface Locale {
  locale: string;
}

const NBSP = '\u00a0';
const SEPARATORS: Record<string, { group: string; decimal: string }> = {
  en: { group: ',', decimal: '.' },
  ka: { group: NBSP, decimal: ',' },
};

/** 124990, "GEL", "en" → "1,249.90 GEL"; in "ka" → "1 249,90 GEL". */
export function formatAmount(minor: number, currency: string, lang: string): string {
  const { group, decimal } = SEPARATORS[lang] ?? SEPARATORS.en!;
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(formatMinor(minor))!;
  const whole = m[2]!.replace(/\B(?=(\d{3})+$)/g, group);
  return `${m[1]}${whole}${decimal}${m[3]}${NBSP}${currency}`;
}

/** The date ("23 November 2026" / "23 ნოემბერი, 2026") in the gateway's time zone. */
export const formatDate = (t: Locale, date: Date, timeZone: string) =>
  dateFormat(t.locale, { timeZone, day: 'numeric', month: 'long', year: 'numeric' }).format(date);

/** The time of day, 24-hour ("14:05"), in the gateway's time zone. */
export const formatTime = (t: Locale, date: Date, timeZone: string) =>
  dateFormat(t.locale, { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(date);
