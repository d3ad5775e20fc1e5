import { digitTables } from './digitTables.ts';

const { padded } = digitTables;
const DAY_MS = 86_400_000;
// Two ASCII digits packed little-endian into 16 bits: 7 -> "07".
const TWO_DIGITS = Uint16Array.from({ length: 100 }, (_, x) => (48 + Math.floor(x / 10)) | ((48 + (x % 10)) << 8));
const DASH = 45;
const COLON = 58;
const DOT = 46;

// The date part of the last day printed ("YYYY-MM-DDT" as three words, the last one's fourth byte
// overwritten by the hour), so a run's records on one day do the calendar arithmetic once.
let cachedDay = Number.NaN;
let dateWord0 = 0;
let dateWord1 = 0;
let dateWord2 = 0;

/** The proleptic Gregorian year, month (1-12) and day of a day count since 1970-01-01 (Hinnant's civil_from_days). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

function cacheDay(day: number): void {
  // civilFromDays inlined: no array per new day (finance prints a new day on every record).
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const date = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  cachedDay = day;
  dateWord0 = padded[year]!;
  dateWord1 = DASH | (TWO_DIGITS[month]! << 8) | (DASH << 24);
  dateWord2 = TWO_DIGITS[date]! | (84 << 16); // 'T'
}

/** The longest text writeTimestamp prints (a six-digit signed year, as ECMAScript's toISOString). */
export const MAX_TIMESTAMP_BYTES = 27;

/**
 * Prints an instant (integer milliseconds since the epoch) as ISO 8601 UTC with milliseconds at `pos`,
 * exactly as ECMAScript's toISOString does, and returns the position after it. Years 0000-9999 take the
 * fast path: the date from a per-day cache, the time of day from digit tables, with no object and no string;
 * like the other writers, stores may leave up to three bytes of garbage past the returned position.
 */
export function writeTimestamp(view: DataView, pos: number, ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    if (day < -719528 || day > 2932896) return writeSlow(view, pos, ms);
    cacheDay(day);
  }
  view.setInt32(pos, dateWord0, true);
  view.setInt32(pos + 4, dateWord1, true);
  view.setInt32(pos + 8, dateWord2, true);
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  view.setUint16(pos + 11, TWO_DIGITS[hours]!, true);
  view.setUint8(pos + 13, COLON);
  view.setUint16(pos + 14, TWO_DIGITS[minutes]!, true);
  view.setUint8(pos + 16, COLON);
  view.setUint16(pos + 17, TWO_DIGITS[seconds]!, true);
  // "0mmm" with its leading zero overwritten by the point.
  view.setInt32(pos + 19, padded[millis]!, true);
  view.setUint8(pos + 19, DOT);
  view.setUint8(pos + 23, 90); // 'Z'
  return pos + 24;
}

function writeSlow(view: DataView, pos: number, ms: number): number {
  const text = isoTimestamp(ms);
  for (let i = 0; i < text.length; i++) view.setUint8(pos + i, text.charCodeAt(i));
  return pos + text.length;
}

const pad = (x: number, digits: number): string => String(x).padStart(digits, '0');

/**
 * The same text as a string (objects, Parquet): what writeTimestamp prints. Years outside 0000-9999 are
 * written as ECMAScript does, a sign and six digits (+010000-01-01T00:00:00.000Z).
 */
export function isoTimestamp(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  const [year, month, date] = civilFromDays(day);
  const rest = ms - day * DAY_MS;
  const yearText = year >= 0 && year <= 9999 ? pad(year, 4) : `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 6)}`;
  const time = `${pad(Math.floor(rest / 3_600_000), 2)}:${pad(Math.floor(rest / 60_000) % 60, 2)}:${pad(Math.floor(rest / 1000) % 60, 2)}.${pad(rest % 1000, 3)}`;
  return `${yearText}-${pad(month, 2)}-${pad(date, 2)}T${time}Z`;
}
