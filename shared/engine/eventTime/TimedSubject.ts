import type { ScenarioOutcome } from '../scenario.ts';
import { CounterRng } from '../counterRng.ts';
import type { SubjectSimulator } from '../simulator.ts';
import type { SequenceClock } from './PresetClock.ts';

/**
 * One subject of an engine-4 run: an engine-3 simulator positioned at one sequence, and that sequence's
 * clock. `next()` writes the sequence's next record into `values` in engine 4's layout (event_time in slot
 * 2, after interaction_id; the engine-3 fields shift by one), with `time` its instant and `last` whether
 * it ended the sequence. The clock draws from its own addressed generator at the record's (sequence,
 * step), in slots the engine-3 dynamics never use (PresetClock.ts).
 */
export class TimedSubject {
  readonly values: Float64Array;
  sequenceId = 0;
  time = 0;
  last = false;
  /** The current record's position in its sequence (1 on its first). */
  step = 0;
  private readonly rng: CounterRng;

  private readonly base: SubjectSimulator;
  private readonly clock: SequenceClock;

  constructor(base: SubjectSimulator, clock: SequenceClock, key: readonly [number, number, number, number]) {
    this.base = base;
    this.clock = clock;
    this.values = new Float64Array(base.values.length + 1);
    this.rng = new CounterRng(key);
  }

  start(sequenceId: number, arrival: number): void {
    this.base.seek(sequenceId);
    this.clock.begin(arrival);
    this.rng.subject(sequenceId);
    this.sequenceId = sequenceId;
    this.step = 0;
    this.last = false;
  }

  next(): void {
    const base = this.base;
    base.next();
    const step = ++this.step;
    this.rng.at(step);
    const from = base.values;
    const time = this.clock.stamp(this.rng, from, step, base);
    const to = this.values;
    to[0] = from[0]!;
    to[1] = from[1]!;
    to[2] = time;
    for (let j = 2; j < from.length; j++) to[j + 1] = from[j]!;
    this.time = time;
    this.last = base.sequenceEnded;
  }

  /** Where at_time event k starts in the sequence about to run. */
  /** What this subject's sequences made of the scenario so far (Simulator.scenarioOutcome). */
  scenarioOutcome(): ScenarioOutcome | undefined {
    return this.base.scenarioOutcome?.();
  }

  setEventStart(k: number, step: number): void {
    this.base.setEventStart(k, step);
  }

  /** Runs the rest of the sequence and returns its last record's instant (a shadow's end). */
  runToEnd(): number {
    do this.next();
    while (!this.last);
    return this.time;
  }
}
