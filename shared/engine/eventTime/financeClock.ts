import type { CounterRng } from '../counterRng.ts';
import { type PresetClock, type SequenceClock } from './PresetClock.ts';
import * as clockConstants from './PresetClock.ts';

// Module-level copies (a loader that turns imports into property reads pays them once).
const { DAY_MS, HOUR_MS, SLOT_ARRIVAL, weekdayOf } = clockConstants;

// One record per trading day at the close: the New York Stock Exchange's regular session ends at 16:00
// New York time, which is 21:00 UTC in winter (EST, UTC-5); the engine writes 21:00:00.000Z all year
// (docs/presets/finance.md: no daylight-saving shift, no exchange holidays, Monday to Friday only).
const CLOSE_MS = 21 * HOUR_MS;
// The first accounts open over the first four calendar weeks; a closed account's place is taken by a new
// account within a working week.
const INITIAL_SPREAD_MS = 28 * DAY_MS;
const REPLACEMENT_SPREAD_MS = 7 * DAY_MS;

const isTradingDay = (day: number): boolean => {
  const weekday = weekdayOf(day);
  return weekday !== 0 && weekday !== 6;
};

/** The first trading day's close at or after `ms`. */
function closeAtOrAfter(ms: number): number {
  let day = Math.floor(ms / DAY_MS);
  if (day * DAY_MS + CLOSE_MS < ms) day++;
  while (!isTradingDay(day)) day++;
  return day * DAY_MS + CLOSE_MS;
}

class FinanceClock implements SequenceClock {
  private arrival = 0;
  private previous = 0;

  begin(arrival: number): void {
    this.arrival = arrival;
  }

  stamp(_rng: CounterRng, _values: Float64Array, step: number): number {
    // An account opens at the first close after it arrives, then records every following trading day.
    this.previous = step === 1 ? closeAtOrAfter(this.arrival) : closeAtOrAfter(this.previous + 1);
    return this.previous;
  }
}

export const financeClock: PresetClock = {
  initialArrival: (rng, startTime) => startTime + Math.floor(rng.uniform(SLOT_ARRIVAL) * INITIAL_SPREAD_MS),
  nextArrival: (rng, freedAt) => freedAt + Math.floor(rng.uniform(SLOT_ARRIVAL) * REPLACEMENT_SPREAD_MS),
  createClock: () => new FinanceClock(),
};
