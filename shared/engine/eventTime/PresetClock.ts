import type { CounterRng } from '../counterRng.ts';
import type { SubjectSimulator } from '../simulator.ts';

export const SECOND_MS = 1000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

// Slots of the addressed randomness the clocks draw from: engine 3's dynamics use slots 0-8, so a clock's
// draws never change a number the records' other fields are made of (engine 4's other fields are engine
// 3's, for the same inputs). At step 0 (a subject's arrival) and at each record's step.
export const SLOT_ARRIVAL = 16;
export const SLOT_CLOCK_A = 17;
export const SLOT_CLOCK_B = 18;
export const SLOT_CLOCK_C = 19;

/**
 * One sequence's clock: the instant of each of its records, from the record's engine-3 fields (its state,
 * its response time, its session time...) and draws addressed by the record's step.
 */
export interface SequenceClock {
  /** Opens a sequence whose subject arrives at `arrival` (ms since the epoch). */
  begin(arrival: number): void;
  /**
   * The instant (ms, an integer) of the record just written into `values` (engine-3 slots: 0 sequence_id,
   * 1 interaction_id, 2 state, then the preset's fields), later than the sequence's previous record.
   * `rng` points at the record's step. A clock may adjust a field to keep its documented relation to
   * the time (mobile_app's session_duration_s), and says so on its preset's page.
   */
  stamp(rng: CounterRng, values: Float64Array, step: number, subject: SubjectSimulator): number;
}

/** A preset's clock: when its subjects arrive, and each sequence's clock. */
export interface PresetClock {
  /** After start_time, when one of the first `population` subjects arrives (ms); rng at its step 0. */
  initialArrival(rng: CounterRng, startTime: number): number;
  /** When the next subject arrives once a subject's place is free at `freedAt` (ms); rng at its step 0. */
  nextArrival(rng: CounterRng, freedAt: number): number;
  createClock(): SequenceClock;
}

/** Day of the week of a day count since 1970-01-01: 0 Sunday .. 6 Saturday (1970-01-01 was a Thursday). */
export function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}
