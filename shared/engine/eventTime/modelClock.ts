import type { CounterRng } from '../counterRng.ts';
import type { SubjectSimulator } from '../simulator.ts';
import type { PresetClock, SequenceClock } from './PresetClock.ts';

/** A non-finite or negative number of seconds counts as none; the instant moves in whole milliseconds. */
const millis = (seconds: number): number => (Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 0);

class ModelClock implements SequenceClock {
  private arrival = 0;
  private previous = 0;

  begin(arrival: number): void {
    this.arrival = arrival;
  }

  stamp(_rng: CounterRng, _values: Float64Array, step: number, subject: SubjectSimulator): number {
    const seconds = subject.clockSeconds?.() ?? (step === 1 ? 0 : 1);
    // The first record at start_offset_seconds after its arrival; each later one step_seconds after the
    // previous, at least 1 ms, so two records of a sequence never share an instant (docs/models.md, "Clock").
    this.previous = step === 1 ? this.arrival + millis(seconds) : this.previous + Math.max(1, millis(seconds));
    return this.previous;
  }
}

/**
 * An account model's clock under engine 4 (docs/models.md#running-a-model, `clock`): the model's own
 * expressions place each record; the first `population` sequences arrive at start_time, and each later one when
 * a place is freed (its first record start_offset_seconds after that).
 */
export const modelClock: PresetClock = {
  initialArrival: (_rng, startTime) => startTime,
  nextArrival: (_rng, freedAt) => freedAt,
  createClock: () => new ModelClock(),
};
