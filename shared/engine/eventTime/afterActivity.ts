import * as clockConstants from './PresetClock.ts';

// Module-level copies (a loader that turns imports into property reads pays them once).
const { DAY_MS, HOUR_MS } = clockConstants;

// When app users open sessions, by hour of the week (users' local time written as UTC: docs/presets/
// mobile_app.md). The daily shape follows Böhmer et al. (2011, MobileHCI, 4,100 Android users): least use
// in the small hours (about 4-5 a.m.), rising through the morning, highest in the evening until about
// 22:00. Saturdays and Sundays carry 0.8 of a weekday's sessions (a weekly cycle, as eventsim's weekend
// damping). The weights are relative; they are scaled so that an hour of "activity time" is an hour of
// clock time on average over the week.
const HOURLY = [
  0.45, 0.28, 0.16, 0.1, 0.08, 0.1, 0.25, 0.55, 0.8, 0.85, 0.88, 0.92, 1.0, 0.95, 0.9, 0.92, 0.98, 1.1, 1.3, 1.5, 1.65, 1.6, 1.3, 0.8,
];
const WEEKEND_FACTOR = 0.8;
const WEEK_MS = 7 * DAY_MS;
// 1970-01-05, the first Monday after the epoch: hour 0 of a week.
const MONDAY_MS = 4 * DAY_MS;

const raw = Array.from({ length: 168 }, (_, h) => HOURLY[h % 24]! * (h >= 120 ? WEEKEND_FACTOR : 1));
const mean = raw.reduce((sum, w) => sum + w, 0) / raw.length;
/** Relative session intensity per hour of the week (Monday 00:00 first), mean 1. */
const WEEKLY_INTENSITY: readonly number[] = raw.map((w) => w / mean);
// Activity time (in hours) accumulated from the start of the week to the start of each hour; [168] is a week's.
const CUMULATIVE = new Float64Array(169);
for (let h = 0; h < 168; h++) CUMULATIVE[h + 1] = CUMULATIVE[h]! + WEEKLY_INTENSITY[h]!;
const WEEK_ACTIVITY = CUMULATIVE[168]!;

/** Activity time (hours) from the epoch's first Monday to `ms`: the integral of the weekly intensity. */
function activityAt(ms: number): number {
  const since = ms - MONDAY_MS;
  const weeks = Math.floor(since / WEEK_MS);
  const inWeek = (since - weeks * WEEK_MS) / HOUR_MS;
  const hour = Math.min(167, Math.floor(inWeek));
  return weeks * WEEK_ACTIVITY + CUMULATIVE[hour]! + (inWeek - hour) * WEEKLY_INTENSITY[hour]!;
}

/**
 * The instant (ms, rounded up, so never before `from`) at which `hours` of activity time have passed
 * since `from`: a gap drawn in activity time lands more often in the evening and on weekdays (a
 * time-changed renewal process, so no draw is rejected and each gap is one draw).
 */
export function afterActivity(from: number, hours: number): number {
  const target = activityAt(from) + hours;
  const weeks = Math.floor(target / WEEK_ACTIVITY);
  const rest = target - weeks * WEEK_ACTIVITY;
  // The hour of the week whose span holds `rest`: binary search over the cumulative table.
  let lo = 0;
  let hi = 167;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (CUMULATIVE[mid]! <= rest) lo = mid;
    else hi = mid - 1;
  }
  const within = (rest - CUMULATIVE[lo]!) / WEEKLY_INTENSITY[lo]!;
  const ms = MONDAY_MS + weeks * WEEK_MS + (lo + within) * HOUR_MS;
  return Math.max(from, Math.ceil(ms));
}
