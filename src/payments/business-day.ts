// The business day: the calendar day in KARIBCHE_TIMEZONE (SPEC 7).

import { dateFormat } from '../clock.ts';

/** YYYY-MM-DD of an instant in a time zone. */
export function businessDay(at: Date, timeZone: string): string {
  return dateFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}
