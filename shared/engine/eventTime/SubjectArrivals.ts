import { CounterRng } from '../counterRng.ts';
import { ScenarioSchedule } from '../scenarioSchedule.ts';
import type { Scenario } from '../scenario.ts';
import type { PresetClock } from './PresetClock.ts';
import type { TimedSubject } from './TimedSubject.ts';

/**
 * When each sequence of an engine-4 run arrives, the same in both orders (DECISIONS "Event time"). The
 * run holds `population` subjects: sequences 1..population arrive after start_time by their preset's
 * initial arrivals; each later sequence takes the place freed first (in instant, then sequence_id order)
 * and arrives by its preset's next arrival after it. A place is freed when its sequence ends, or, for a
 * sequence a scenario event targets, when it would have ended without the scenario (a shadow run of that
 * sequence alone): so an event never moves another sequence, and the matched counterfactuals hold per
 * sequence in both orders. Every draw is addressed by the arriving sequence (step 0, PresetClock's slot).
 */
export class SubjectArrivals {
  private readonly rng: CounterRng;
  private readonly schedule: ScenarioSchedule;
  private shadow: TimedSubject | undefined;

  private readonly clock: PresetClock;
  private readonly startTime: number;
  private readonly makeShadow: () => TimedSubject;

  constructor(clock: PresetClock, key: readonly [number, number, number, number], startTime: number, scenario: Scenario | undefined, types: readonly string[], makeShadow: () => TimedSubject) {
    this.clock = clock;
    this.startTime = startTime;
    this.makeShadow = makeShadow;
    this.rng = new CounterRng(key);
    this.schedule = new ScenarioSchedule(scenario, types);
  }

  /** The arrival of one of the first `population` sequences. */
  initial(sequenceId: number): number {
    this.rng.subject(sequenceId);
    this.rng.at(0);
    return this.clock.initialArrival(this.rng, this.startTime);
  }

  /** The arrival of a later sequence, in the place freed at `freedAt`. */
  after(sequenceId: number, freedAt: number): number {
    this.rng.subject(sequenceId);
    this.rng.at(0);
    return this.clock.nextArrival(this.rng, freedAt);
  }

  /**
   * When a sequence arriving at `arrival` frees its place if an event targets it (its end without the
   * scenario), or -1: its own end frees it.
   */
  freedBy(sequenceId: number, arrival: number): number {
    if (!this.schedule.enter(sequenceId)) return -1;
    this.shadow ??= this.makeShadow();
    this.shadow.start(sequenceId, arrival);
    return this.shadow.runToEnd();
  }
}
