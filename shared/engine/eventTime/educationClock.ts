import type { CounterRng } from '../counterRng.ts';
import { type PresetClock, type SequenceClock } from './PresetClock.ts';
import * as clockConstants from './PresetClock.ts';

// Module-level copies (a loader that turns imports into property reads pays them once).
const { DAY_MS, HOUR_MS, SECOND_MS, SLOT_ARRIVAL, SLOT_CLOCK_A, SLOT_CLOCK_B, SLOT_CLOCK_C } = clockConstants;

// Slot 3 of an education record (engine-3 layout): response_time_ms.
const RESPONSE_TIME_SLOT = 3;
// A study session opens between 15:00 and 21:00 UTC (after school or work) and ends after an item with
// probability 1/8 (about 8 items, some 5 minutes, a session); the next one opens 1 + Exp(1.5) days later
// (days without study are common: docs/presets/education.md).
const SESSION_OPEN_MS = 15 * HOUR_MS;
const SESSION_WINDOW_MS = 6 * HOUR_MS;
const SESSION_END_PROBABILITY = 1 / 8;
const MEAN_DAYS_OFF = 1.5;
// Between an answer and the next item: reading the feedback and the next item's stem, log-normal with a
// median of 4 s (sd of the log 0.5).
const THINK_LOG_MEDIAN = Math.log(4 * SECOND_MS);
const THINK_LOG_SD = 0.5;
// Learners start over the first week; a finished learner's place is taken within a day.
const INITIAL_SPREAD_MS = 7 * DAY_MS;
const REPLACEMENT_SPREAD_MS = DAY_MS;

/** A session's opening on `day` (a day count since the epoch), at a drawn time of the evening window. */
const sessionOpening = (day: number, u: number): number => day * DAY_MS + SESSION_OPEN_MS + Math.floor(u * SESSION_WINDOW_MS);

class EducationClock implements SequenceClock {
  private arrival = 0;
  private previous = 0;
  private previousResponse = 0;

  begin(arrival: number): void {
    this.arrival = arrival;
  }

  stamp(rng: CounterRng, values: Float64Array, step: number): number {
    let time: number;
    if (step === 1) {
      // The first session: the evening of the arrival's day, or the next day's when that has passed.
      const day = Math.floor(this.arrival / DAY_MS);
      time = sessionOpening(day, rng.uniform(SLOT_CLOCK_B));
      if (time < this.arrival) time += DAY_MS;
    } else if (rng.uniform(SLOT_CLOCK_A) < SESSION_END_PROBABILITY) {
      // A new session on a later day.
      const daysOff = 1 + Math.floor(rng.exponential(SLOT_CLOCK_C, MEAN_DAYS_OFF));
      time = sessionOpening(Math.floor(this.previous / DAY_MS) + daysOff, rng.uniform(SLOT_CLOCK_B));
    } else {
      // The next item: after the previous answer and a think time.
      const think = Math.round(Math.exp(THINK_LOG_MEDIAN + THINK_LOG_SD * rng.normal(SLOT_CLOCK_C)));
      time = this.previous + this.previousResponse + Math.max(1, think);
    }
    this.previous = time;
    this.previousResponse = values[RESPONSE_TIME_SLOT]!;
    return time;
  }
}

export const educationClock: PresetClock = {
  initialArrival: (rng, startTime) => startTime + Math.floor(rng.uniform(SLOT_ARRIVAL) * INITIAL_SPREAD_MS),
  nextArrival: (rng, freedAt) => freedAt + Math.floor(rng.uniform(SLOT_ARRIVAL) * REPLACEMENT_SPREAD_MS),
  createClock: () => new EducationClock(),
};
