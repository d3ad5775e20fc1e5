import { digitTables } from './digitTables.ts';

const { padded } = digitTables;
const DAY_MS = 86_400_000;
// Two ASCII digits packed little-endian into 16 bits: 7 -> "07".
const TWO_DIGITS = Uint16Array.from({ length: 100 }, (_, x) => (48 + Math.floor(x / 10)) | ((48 + (x % 10)) << 8));
const DASH = 45;
const COLON = 58;
const DOT = 46;
const T = 84;
const Z = 90;

// The time of day by minute of the day, as two words: "HH:M" (the minute's tens last) and the minute's
// units with the colon after them (the seconds' two digits are added on top). A time of day is then two
// integer divisions, three table reads and three stores.
const MINUTE_HEAD = Int32Array.from({ length: 1440 }, (_, m) => TWO_DIGITS[Math.floor(m / 60)]! | (COLON << 16) | ((48 + Math.floor((m % 60) / 10)) << 24));
const MINUTE_TAIL = Int32Array.from({ length: 1440 }, (_, m) => (48 + (m % 10)) | (COLON << 8));
// ".mmm": the milliseconds' four-digit word, its leading zero turned into the point.
const MILLIS = Int32Array.from({ length: 1000 }, (_, x) => (padded[x]! & ~0xff) | DOT);

// The days the fast path prints: 0000-01-01 to 9999-12-31.
const FIRST_DAY = -719528;
const LAST_DAY = 2932896;
// The date part ("YYYY-MM-DDT" as three words, the third one's fourth byte overwritten by the hour) of the
// days printed, in a direct-mapped cache of about eleven years, so the calendar arithmetic (which costs
// more than the rest of a timestamp) is done about once per day of a run: finance prints a new day on
// every record of a sequence, and its next sequences walk the same days again.
const CACHE_DAYS = 4096;
const NO_DAY = 0x7fffffff;
const cachedDays = new Int32Array(CACHE_DAYS).fill(NO_DAY);
const dateWords = new Int32Array(3 * CACHE_DAYS);

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

/** Fills the cache's slot of `day` (once per day: the array civilFromDays returns is not worth avoiding). */
function cacheDay(day: number, slot: number): void {
  const [year, month, date] = civilFromDays(day);
  cachedDays[slot] = day;
  dateWords[3 * slot] = padded[year]!;
  dateWords[3 * slot + 1] = DASH | (TWO_DIGITS[month]! << 8) | (DASH << 24);
  dateWords[3 * slot + 2] = TWO_DIGITS[date]! | (T << 16);
}

/** The longest text writeTimestamp prints (a six-digit signed year, as ECMAScript's toISOString). */
export const MAX_TIMESTAMP_BYTES = 27;

/**
 * Prints an instant (integer milliseconds since the epoch) as ISO 8601 UTC with milliseconds at `pos`,
 * exactly as ECMAScript's toISOString does, and returns the position after it. Years 0000-9999 take the
 * fast path: the date from the day cache, the time of day from digit tables, with no object and no string;
 * like the other writers, stores may leave up to three bytes of garbage past the returned position.
 */
export function writeTimestamp(view: DataView, pos: number, ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  const slot = day & (CACHE_DAYS - 1);
  if (cachedDays[slot] !== day) {
    if (!(day >= FIRST_DAY && day <= LAST_DAY)) return writeSlow(view, pos, ms);
    cacheDay(day, slot);
  }
  const word = 3 * slot;
  view.setInt32(pos, dateWords[word]!, true);
  view.setInt32(pos + 4, dateWords[word + 1]!, true);
  view.setInt32(pos + 8, dateWords[word + 2]!, true);
  // Under a day's 86,400,000 ms: int32 arithmetic, whose divisions by constants compile to multiplications.
  const rest = (ms - day * DAY_MS) | 0;
  const second = (rest / 1000) | 0;
  const minute = (second / 60) | 0;
  view.setInt32(pos + 11, MINUTE_HEAD[minute]!, true);
  view.setInt32(pos + 15, MINUTE_TAIL[minute]! | (TWO_DIGITS[second - minute * 60]! << 16), true);
  view.setInt32(pos + 19, MILLIS[rest - second * 1000]!, true);
  view.setUint8(pos + 23, Z);
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
