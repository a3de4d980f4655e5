// The business day: the calendar day in KARIBCHE_TIMEZONE (SPEC 7).

import { dateFormat } from '../clock.ts';

/** YYYY-MM-DD of an instant in a time zone. */
export function businessDay(at: Date, timeZone: string): string {
  return dateFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** The instant a calendar day (YYYY-MM-DD) begins in a time zone: the inverse of businessDay. */
export function startOfBusinessDay(day: string, timeZone: string): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  // The zone's offset at a moment: its wall-clock reading minus the moment itself.
  const offsetAt = (ms: number) => {
    const p = Object.fromEntries(
      dateFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      })
        .formatToParts(new Date(ms))
        .map((x) => [x.type, x.value]),
    );
    // Not Date.UTC: it reads the years 0–99 as 1900–1999 (a filter on 0001-01-02 became 1901).
    const wall = new Date(0);
    wall.setUTCFullYear(Number(p.year), Number(p.month) - 1, Number(p.day));
    wall.setUTCHours(Number(p.hour), Number(p.minute), Number(p.second));
    return wall.getTime() - ms;
  };
  const guess = midnightUtc - offsetAt(midnightUtc);
  // Once more at the guess, in case the offset changes between the two (a DST switch that night).
  return new Date(midnightUtc - offsetAt(guess));
}
