import { CounterRng } from '../counterRng.ts';
import { NEVER, ScenarioSchedule } from '../scenarioSchedule.ts';
import type { Scenario } from '../scenario.ts';
import type { PresetClock } from './PresetClock.ts';
import type { TimedSubject } from './TimedSubject.ts';

/**
 * When each sequence of an engine-4 run arrives, the same in both orders (docs/api.md#event-time). The
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
  /** The scenario's at_time events (their indices), and where each starts in the sequence last placed. */
  private readonly atTimeEvents: number[];
  private readonly atTimeSteps: Int32Array;

  private readonly clock: PresetClock;
  private readonly startTime: number;
  private readonly makeShadow: () => TimedSubject;

  constructor(clock: PresetClock, key: readonly [number, number, number, number], startTime: number, scenario: Scenario | undefined, types: readonly string[], horizon: number, makeShadow: () => TimedSubject) {
    this.clock = clock;
    this.startTime = startTime;
    this.makeShadow = makeShadow;
    this.rng = new CounterRng(key);
    this.schedule = new ScenarioSchedule(scenario, types, key, horizon);
    this.atTimeEvents = [...this.schedule.atTimes.keys()].filter((k) => !Number.isNaN(this.schedule.atTimes[k]!));
    this.atTimeSteps = new Int32Array(this.schedule.atTimes.length);
  }

  /**
   * Whether some sequence's place may be freed by its shadow end (the scenario has events): then a
   * time-ordered run's heap may hold a freed place and a record with the same instant and id.
   */
  get shadowed(): boolean {
    return this.schedule.hasEvents;
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
    const shadow = (this.shadow ??= this.makeShadow());
    shadow.start(sequenceId, arrival);
    const pending = this.atTimeEvents.filter((k) => this.schedule.targets(k, sequenceId));
    for (const k of this.atTimeEvents) this.atTimeSteps[k] = NEVER;
    do {
      shadow.next();
      // An at_time event starts at the sequence's first record at or after its instant, judged on the
      // sequence's timeline without the scenario (its own, up to the event's first record).
      for (let i = pending.length - 1; i >= 0; i--) {
        const k = pending[i]!;
        if (shadow.time >= this.schedule.atTimes[k]!) {
          this.atTimeSteps[k] = shadow.step;
          pending.splice(i, 1);
        }
      }
    } while (!shadow.last);
    return shadow.time;
  }

  /** Places the scenario's at_time events in the sequence `subject` is about to run (after freedBy). */
  placeEvents(subject: TimedSubject): void {
    for (const k of this.atTimeEvents) subject.setEventStart(k, this.atTimeSteps[k]!);
  }
}
