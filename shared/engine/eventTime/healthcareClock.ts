import type { CounterRng } from '../counterRng.ts';
import { type PresetClock, type SequenceClock } from './PresetClock.ts';
import * as clockConstants from './PresetClock.ts';

// Module-level copies (a loader that turns imports into property reads pays them once).
const { HOUR_MS, SLOT_ARRIVAL, SLOT_CLOCK_A } = clockConstants;

// The interval to the next set of vitals follows the state the patient was found in, as NEWS2 sets the
// minimum monitoring frequency by score (Royal College of Physicians 2017: score 0 at least 12-hourly,
// 1-4 4- to 6-hourly, 5-6 hourly, 7 or more continuous monitoring). States in the engine's order:
// Stable 12 h, Elevated 1 h, Critical 15 min, Recovering 4 h (Discharged ends the sequence). Rounds are
// not punctual: each interval is 0.9-1.1 times its state's (docs/presets/healthcare.md).
const HEALTHCARE_INTERVAL_MS: readonly number[] = [12 * HOUR_MS, HOUR_MS, HOUR_MS / 4, 4 * HOUR_MS, 12 * HOUR_MS];
const STATE_SLOT = 2;
// The first patients are admitted over the first day; a discharged patient's bed takes the next patient
// after an exponential turnaround with a mean of 4 hours.
const INITIAL_SPREAD_MS = 24 * HOUR_MS;
const MEAN_TURNAROUND_MS = 4 * HOUR_MS;

class HealthcareClock implements SequenceClock {
  private previous = 0;
  private previousState = 0;

  begin(arrival: number): void {
    this.previous = arrival;
  }

  stamp(rng: CounterRng, values: Float64Array, step: number): number {
    // The admission's vitals are taken on arrival.
    if (step > 1) {
      const interval = HEALTHCARE_INTERVAL_MS[this.previousState]! * (0.9 + 0.2 * rng.uniform(SLOT_CLOCK_A));
      this.previous += Math.max(1, Math.round(interval));
    }
    this.previousState = values[STATE_SLOT]!;
    return this.previous;
  }
}

export const healthcareClock: PresetClock = {
  initialArrival: (rng, startTime) => startTime + Math.floor(rng.uniform(SLOT_ARRIVAL) * INITIAL_SPREAD_MS),
  nextArrival: (rng, freedAt) => freedAt + Math.round(rng.exponential(SLOT_ARRIVAL, MEAN_TURNAROUND_MS)),
  createClock: () => new HealthcareClock(),
};
