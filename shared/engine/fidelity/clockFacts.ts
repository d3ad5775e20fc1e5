import { DAY_MS, HOUR_MS, weekdayOf } from '../eventTime/PresetClock.ts';
import type { PresetName } from '../presetTypes.ts';
import { fact, type FidelityFact, type PresetFacts, quote } from './fidelityFact.ts';
import type { SampleColumns } from './sampleColumns.ts';
import { mean, median } from './statistics.ts';

// Engine 4's clock facts (docs/decisions.md#fidelity), measured on the fixed samples like the others: the
// times never go back or repeat within a sequence, and each preset's clock shows its domain's calendar
// and cycles (docs/presets/*.md, "Clock").

const hourOf = (ms: number): number => Math.floor((ms - Math.floor(ms / DAY_MS) * DAY_MS) / HOUR_MS);
const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
// A gap this long between two records of a learner separates two study sessions.
const SESSION_GAP_MS = 30 * 60_000;

/** Share of consecutive records of a sequence whose event_time strictly increases. */
function increasingShare(columns: SampleColumns): number {
  const sequence = columns.column('sequence_id');
  const time = columns.column('event_time');
  let pairs = 0;
  let increasing = 0;
  for (let i = 1; i < time.length; i++) {
    if (sequence[i] !== sequence[i - 1]) continue;
    pairs++;
    if (time[i]! > time[i - 1]!) increasing++;
  }
  return increasing / pairs;
}

function increasingFact(profile: string, columns: SampleColumns): FidelityFact {
  const share = increasingShare(columns);
  return fact('clock_increasing_within_sequence', 'Share of consecutive records of a sequence whose event_time is later than the previous one', profile, '= 1', share, share === 1);
}

const financeClockFacts: PresetFacts = (samples) =>
  samples.flatMap(({ profile, columns }) => {
    const time = columns.column('event_time');
    const sequence = columns.column('sequence_id');
    let weekend = 0;
    let atClose = 0;
    let nextTradingDay = 0;
    let pairs = 0;
    for (let i = 0; i < time.length; i++) {
      const weekday = weekdayOf(dayOf(time[i]!));
      if (weekday === 0 || weekday === 6) weekend++;
      if (time[i]! - dayOf(time[i]!) * DAY_MS === 21 * HOUR_MS) atClose++;
      if (i > 0 && sequence[i] === sequence[i - 1]) {
        pairs++;
        // The next trading day: the next calendar day, or Monday after a Friday.
        const days = dayOf(time[i]!) - dayOf(time[i - 1]!);
        if (days === 1 || (days === 3 && weekdayOf(dayOf(time[i - 1]!)) === 5)) nextTradingDay++;
      }
    }
    const weekendShare = weekend / time.length;
    const closeShare = atClose / time.length;
    const nextShare = nextTradingDay / pairs;
    return [
      increasingFact(profile, columns),
      fact('clock_weekdays_only', 'Share of records on a Saturday or a Sunday (UTC)', profile, '= 0', weekendShare, weekendShare === 0),
      fact('clock_market_close', 'Share of records at the close, 21:00:00.000Z (16:00 New York, EST)', profile, '= 1', closeShare, closeShare === 1),
      fact('clock_next_trading_day', "Share of an account's consecutive records one trading day apart", profile, '= 1', nextShare, nextShare === 1),
    ];
  });

const educationClockFacts: PresetFacts = (samples) =>
  samples.flatMap(({ profile, columns }) => {
    const time = columns.column('event_time');
    const sequence = columns.column('sequence_id');
    const response = columns.column('response_time_ms');
    let breaks = 0;
    let breaksToLaterDay = 0;
    let withinSession = 0;
    let sameDay = 0;
    let afterAnswer = 0;
    for (let i = 1; i < time.length; i++) {
      if (sequence[i] !== sequence[i - 1]) continue;
      const gap = time[i]! - time[i - 1]!;
      if (gap > SESSION_GAP_MS) {
        breaks++;
        if (dayOf(time[i]!) > dayOf(time[i - 1]!)) breaksToLaterDay++;
      } else {
        withinSession++;
        if (dayOf(time[i]!) === dayOf(time[i - 1]!)) sameDay++;
        if (gap > response[i - 1]!) afterAnswer++;
      }
    }
    const separate = breaksToLaterDay / breaks;
    const oneDay = sameDay / withinSession;
    const answered = afterAnswer / withinSession;
    return [
      increasingFact(profile, columns),
      fact('clock_sessions_on_separate_days', 'Share of breaks between study sessions (gaps over 30 min) that end on a later UTC day', profile, '= 1', separate, separate === 1),
      fact('clock_session_within_a_day', 'Share of consecutive items of a session on the same UTC day', profile, '≥ 0.99', oneDay, oneDay >= 0.99),
      fact('clock_item_after_answer', "Share of a session's items shown later than the previous item plus its response_time_ms", profile, '= 1', answered, answered === 1),
    ];
  });

const healthcareClockFacts: PresetFacts = (samples) =>
  samples.flatMap(({ profile, columns }) => {
    const time = columns.column('event_time');
    const sequence = columns.column('sequence_id');
    const state = columns.column('state');
    const critical = columns.indexOf('state', 'Critical');
    const stable = columns.indexOf('state', 'Stable');
    const afterCritical: number[] = [];
    const afterStable: number[] = [];
    for (let i = 1; i < time.length; i++) {
      if (sequence[i] !== sequence[i - 1]) continue;
      const hours = (time[i]! - time[i - 1]!) / HOUR_MS;
      if (state[i - 1] === critical) afterCritical.push(hours);
      else if (state[i - 1] === stable) afterStable.push(hours);
    }
    const ratio = mean(afterCritical) / mean(afterStable);
    return [
      increasingFact(profile, columns),
      fact(
        'clock_denser_in_critical',
        'Mean interval to the next vitals after a Critical record, over the mean after a Stable one',
        profile,
        '≤ 0.25',
        ratio,
        ratio <= 0.25,
      ),
    ];
  });

const mobileAppClockFacts: PresetFacts = (samples) =>
  samples.flatMap(({ profile, columns }) => {
    const time = columns.column('event_time');
    const sequence = columns.column('sequence_id');
    const duration = columns.column('session_duration_s');
    let evening = 0;
    let night = 0;
    let weekendStarts = 0;
    let starts = 0;
    let exact = 0;
    let opened = 0;
    const gaps: number[] = [];
    for (let i = 0; i < time.length; i++) {
      const t = time[i]!;
      if (duration[i] === 0) {
        // A session opens (its first event has session_duration_s 0).
        starts++;
        const hour = hourOf(t);
        if (hour >= 18) evening++;
        else if (hour < 6) night++;
        const weekday = weekdayOf(dayOf(t));
        if (weekday === 0 || weekday === 6) weekendStarts++;
        if (i > 0 && sequence[i] === sequence[i - 1]) gaps.push((t - time[i - 1]!) / HOUR_MS);
        opened = t;
      }
      if (Math.round(t - opened) === Math.round(duration[i]! * 1000)) exact++;
    }
    // Per day: weekend days are 2 of 7.
    const weekly = weekendStarts / 2 / ((starts - weekendStarts) / 5);
    const diurnal = evening / night;
    const gapMedian = median(Float64Array.from(gaps));
    const gapRatio = mean(gaps) / gapMedian;
    const exactShare = exact / time.length;
    return [
      increasingFact(profile, columns),
      fact('clock_session_time', 'Share of records whose event_time minus their session\'s opening equals session_duration_s', profile, '= 1', exactShare, exactShare === 1),
      fact('clock_diurnal_cycle', 'Sessions opened 18:00-24:00 over sessions opened 00:00-06:00 (UTC as local time)', profile, '≥ 3', diurnal, diurnal >= 3),
      fact('clock_weekly_cycle', 'Sessions opened per weekend day over sessions opened per weekday', profile, '≤ 0.9', weekly, weekly <= 0.9),
      fact('clock_session_gap_median_hours', 'Median hours between the end of a session and the next one of the same user', profile, '1–72', gapMedian, gapMedian >= 1 && gapMedian <= 72),
      fact('clock_session_gaps_heavy_tailed', 'Mean over median of the gaps between sessions', profile, `≥ 1.5 (median ${quote(gapMedian)} h)`, gapRatio, gapRatio >= 1.5),
    ];
  });

/** Engine 4's clock facts per preset. */
export const CLOCK_FACTS: Readonly<Record<PresetName, PresetFacts>> = {
  education: educationClockFacts,
  finance: financeClockFacts,
  healthcare: healthcareClockFacts,
  mobile_app: mobileAppClockFacts,
};
