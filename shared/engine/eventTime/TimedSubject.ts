import type { ScenarioOutcome } from '../scenario.ts';
import type { CounterRng } from '../counterRng.ts';
import type { SubjectSimulator } from '../simulator.ts';
import type { SequenceClock } from './PresetClock.ts';

/**
 * One subject of an engine-4 run: an engine-3 simulator positioned at one sequence, and that sequence's
 * clock. `next()` makes the sequence's next record, in engine 3's layout in the simulator's own values, with
 * `time` its instant and `last` whether it ended the sequence; `writeRecord` copies it into engine 4's
 * layout (event_time in slot 2, after interaction_id; the engine-3 fields shift by one). The clock draws
 * from an addressed generator at the record's (sequence, step), in slots the engine-3 dynamics never use
 * (PresetClock.ts). The run's subjects share that generator, pointing it at their own sequence for each
 * record: a draw depends only on its address, and one generator for 10,000 subjects is one object to keep
 * in cache instead of 10,000.
 */
export class TimedSubject {
  sequenceId = 0;
  time = 0;
  last = false;
  /** The current record's position in its sequence (1 on its first). */
  step = 0;
  private readonly rng: CounterRng;

  private readonly base: SubjectSimulator;
  private readonly clock: SequenceClock;

  constructor(base: SubjectSimulator, clock: SequenceClock, rng: CounterRng) {
    this.base = base;
    this.clock = clock;
    this.rng = rng;
  }

  start(sequenceId: number, arrival: number): void {
    this.base.seek(sequenceId);
    this.clock.begin(arrival);
    this.sequenceId = sequenceId;
    this.step = 0;
    this.last = false;
  }

  next(): void {
    const base = this.base;
    base.next();
    const step = ++this.step;
    const rng = this.rng;
    rng.subject(this.sequenceId);
    rng.at(step);
    this.time = this.clock.stamp(rng, base.values, step, base);
    this.last = base.sequenceEnded;
  }

  /**
   * Writes the record `next()` made into `to` at `at` in engine 4's layout, numbered `interactionId`. The
   * record stays in the engine-3 simulator's values until then, so it is copied once, to where the run
   * wants it (a subject has no values of its own: a typed array per subject costs more to make than the
   * records of a short sequence).
   */
  writeRecord(to: Float64Array, at: number, interactionId: number): void {
    const from = this.base.values;
    to[at] = from[0]!;
    to[at + 1] = interactionId;
    to[at + 2] = this.time;
    for (let j = 2; j < from.length; j++) to[at + j + 1] = from[j]!;
  }

  /** Its events count once their record is printed (a time-ordered run's merge; SubjectSimulator). */
  holdScenarioNotes(): void {
    this.base.holdScenarioNotes();
  }

  /** The record made last was printed. */
  confirmScenarioNote(): void {
    this.base.confirmScenarioNote();
  }

  /** What this subject's sequences made of the scenario so far (Simulator.scenarioOutcome). */
  scenarioOutcome(): ScenarioOutcome | undefined {
    return this.base.scenarioOutcome?.();
  }

  /** Where at_time event k starts in the sequence about to run. */
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
