// The business day: the calendar day in KARIBCHE_TIMEZONE (SPEC 7).

const formats = new Map<string, Intl.DateTimeFormat>();

/** YYYY-MM-DD of an instant in a time zone. */
export function businessDay(at: Date, timeZone: string): string {
  let f = formats.get(timeZone);
  if (!f) formats.set(timeZone, (f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return f.format(at);
}
