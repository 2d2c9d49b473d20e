/**
 * parseSince reads the routing-log cursor a poller sends back. It must name an instant, so a
 * time without a zone is refused rather than guessed at (the server's zone and the poller's
 * need not agree), and it is turned into epoch milliseconds so an offset form compares with
 * the Z rows by time, not by text.
 */

/**
 * Why a value was refused, for a caller that words the refusal for its own users (the CLI's
 * --since has no query string to escape a + in); `message` is the API's sentence.
 */
export type SinceProblem = 'plus_as_space' | 'no_zone' | 'not_iso' | 'not_real' | 'out_of_range';

export type ParsedSince =
  { readonly ok: true; readonly ms: number; readonly iso: string } | { readonly ok: false; readonly problem: SinceProblem; readonly message: string };

// Date, then hours and minutes, optional seconds and fraction. Groups: 1-7 the fields, 8 the zone.
const DATE_TIME = String.raw`(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?`;
const ZONED = new RegExp(`^${DATE_TIME}([Zz]|[+-]\\d{2}:?\\d{2})$`);
// A query string decodes a bare + to a space, so "…00.000+01:00" sent unescaped arrives like this.
const PLUS_AS_SPACE = new RegExp(`^${DATE_TIME} (\\d{2}:?\\d{2})$`);
const ZONELESS = new RegExp(`^\\d{4}-\\d{2}-\\d{2}(?:[Tt ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?)?$`);

const ZONE_RULE = 'since must name a time zone: Z or an offset such as +01:00, with the + sent as %2B in a query string';
const EXAMPLE = '2026-11-30T12:00:00.000Z';
/** The longest piece of a refused value echoed back, so a message stays one line. */
const ECHO_CHARS = 64;

/** parseSince accepts ISO 8601 date-times carrying Z or ±hh:mm / ±hhmm; anything else is refused with a sentence. */
export function parseSince(raw: string): ParsedSince {
  const shown = JSON.stringify(raw.slice(0, ECHO_CHARS));
  if (PLUS_AS_SPACE.test(raw)) {
    const fixed = raw.replace(/ (\d{2}:?\d{2})$/, '%2B$1');
    return refuse('plus_as_space', `${ZONE_RULE}. ${shown} looks like an offset whose + arrived as a space; send it as ${fixed}`);
  }
  if (ZONELESS.test(raw)) return refuse('no_zone', `${ZONE_RULE}. ${shown} has no zone`);
  const m = ZONED.exec(raw);
  if (m === null) return refuse('not_iso', `since must be an ISO 8601 time such as ${EXAMPLE}, got ${shown}. ${ZONE_RULE}`);

  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const fields = [y, mo, d, h, mi, s ?? '0'].map(Number) as [number, number, number, number, number, number];
  // Sub-millisecond digits are dropped: rows are stamped to the millisecond and since is inclusive.
  const millis = Number((frac ?? '').padEnd(3, '0').slice(0, 3));
  const local = utcMs(...fields, millis);
  const offset = offsetMinutes(zone ?? 'Z');
  if (local === null || offset === null) return refuse('not_real', `since ${shown} is not a real time`);
  const ms = local - offset * 60_000;
  if (!Number.isFinite(new Date(ms).getTime())) return refuse('out_of_range', `since ${shown} is out of range`);
  return { ok: true, ms, iso: new Date(ms).toISOString() };
}

function refuse(problem: SinceProblem, message: string): ParsedSince {
  return { ok: false, problem, message };
}

/** Epoch ms for wall-clock fields read as UTC; null when a field is out of range (month 13, 31 April, 24:00). */
function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number | null {
  if (h > 23 || mi > 59 || s > 59) return null;
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  const rolledOver = date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d;
  return rolledOver ? null : date.getTime();
}

/** Minutes east of UTC for Z, ±hh:mm or ±hhmm; null when the offset is not a real one. */
function offsetMinutes(zone: string): number | null {
  if (zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
