import uPlot from '../vendor/uPlot.esm.js';

// A real time axis for uPlot in UTC (docs/console.md "Run", the time axis): x values are milliseconds
// since the epoch, ticks fall on UTC boundaries, and labels say the time and, where it changes, the day.
// UTC throughout, as the records print event_time: a reader in another zone sees the records' own instants.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 86_400_000;
const MONTH = 28 * DAY;

const utc = (options) => new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', ...options });
const monthYear = utc({ month: 'short', year: 'numeric' });
const monthOnly = utc({ month: 'short' });
const dayMonth = utc({ month: 'short', day: 'numeric' });
const yearOnly = utc({ year: 'numeric' });
const hoursMinutes = utc({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const withSeconds = utc({ hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

const yearOf = (ms) => new Date(ms).getUTCFullYear();
const dayOf = (ms) => Math.floor(ms / DAY);

/**
 * Tick labels for UTC instants `splits` placed `increment` ms apart: months, days or times of day, with
 * the year or the day on a second line where it changes (and on the first tick), so every label can be
 * read alone.
 */
const utcTickLabels = (splits, increment) =>
  splits.map((ms, index) => {
    const previous = index === 0 ? null : splits[index - 1];
    if (increment >= MONTH) {
      return previous === null || yearOf(ms) !== yearOf(previous) ? monthYear.format(ms) : monthOnly.format(ms);
    }
    if (increment >= DAY) {
      return previous === null || yearOf(ms) !== yearOf(previous) ? `${dayMonth.format(ms)}\n${yearOnly.format(ms)}` : dayMonth.format(ms);
    }
    const time = increment >= MINUTE ? hoursMinutes.format(ms) : increment >= SECOND ? withSeconds.format(ms) : `${withSeconds.format(ms)}.${String(ms % SECOND).padStart(3, '0')}`;
    return previous === null || dayOf(ms) !== dayOf(previous) ? `${time}\n${dayMonth.format(ms)}` : time;
  });

/** uPlot's top-level options for a time x scale in milliseconds, ticked in UTC. */
export const UTC_TIME_OPTIONS = {
  ms: 1,
  tzDate: (ms) => uPlot.tzDate(new Date(ms), 'Etc/UTC'),
};

/** The x scale: exactly the data's first and last instants (a single instant gets a second either side). */
export const utcTimeScale = { time: true, range: (u, min, max) => (min === max ? [min - SECOND, max + SECOND] : [min, max]) };

/**
 * The x axis in `style`, labelled in UTC. `onTicks(labels)` hears the labels drawn, so the page can say
 * them (data-x-ticks) to tests and tools: a canvas's text cannot be read back.
 */
export const utcTimeAxis = (style, onTicks = () => {}) => ({
  ...style,
  label: 'Event time (UTC)',
  // Two-line labels ("21:00" over "Jan 5") need room across and down.
  space: 72,
  size: 56,
  values: (u, splits, axisIndex, space, increment) => {
    const labels = utcTickLabels(splits, increment);
    onTicks(labels);
    return labels;
  },
});
