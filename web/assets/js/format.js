const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
// Monthly periods are calendar months in UTC: showing them in local time would move "1 December" to
// "30 November" for everyone west of Greenwich.
const utcDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'long', timeZone: 'UTC' });
const utcTime = new Intl.DateTimeFormat(undefined, { timeStyle: 'short', timeZone: 'UTC', hourCycle: 'h23' });

export const formatInteger = (value) => integer.format(value);
export const formatNumber = (value) => decimal.format(value);
export const formatDateTime = (iso) => (iso === null || iso === undefined ? '' : dateTime.format(new Date(iso)));
export const formatUtcDate = (iso) => `${utcDate.format(new Date(iso))}, ${utcTime.format(new Date(iso))} UTC`;

export const plural = (count, one, many = `${one}s`) => `${formatInteger(count)} ${count === 1 ? one : many}`;

/** 75 → "1 minute 15 seconds"; under a minute, seconds only. */
export const formatDuration = (seconds) => {
  const total = Math.max(1, Math.ceil(seconds));
  const minutes = Math.floor(total / 60);
  const rest = total % 60;
  if (minutes === 0) {
    return plural(rest, 'second');
  }
  return rest === 0 ? plural(minutes, 'minute') : `${plural(minutes, 'minute')} ${plural(rest, 'second')}`;
};

/** Field names as people read them: "portfolio_value" → "Portfolio value". */
export const humanize = (name) => {
  const words = name.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** An instant as the console writes one in words: "2026-01-05 21:00:00 UTC" (milliseconds when it has them). */
export const formatUtcInstant = (ms) => {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.endsWith('.000Z') ? iso.slice(11, 19) : iso.slice(11, 23)} UTC`;
};
