import { CounterRng } from '../../counterRng.ts';
import type { ScenarioEventType, ScenarioOutcome } from '../../scenario.ts';
import { ScenarioSchedule } from '../../scenarioSchedule.ts';
import { SequenceCounter } from '../../sequenceCounter.ts';
import type { RunContext } from '../../simulator.ts';

/**
 * What every engine-3 model holds, written once: its profile, its addressed randomness (a draw depends on
 * the run key, the subject, the step and the slot only: shared/engine/counterRng.ts), the run's scenario
 * schedule and the counter of its sequences. A model reads the event active at a step with eventAt, once
 * the schedule told it at the sequence's start whether the sequence is targeted.
 */
export abstract class ScenarioSimulator<P> {
  protected readonly profile: P;
  protected readonly rng: CounterRng;
  protected readonly schedule: ScenarioSchedule;
  protected readonly sequence: SequenceCounter;
  /** Whether an event targets the current sequence (ScenarioSchedule.enter at its first step). */
  protected targeted = false;

  constructor(profile: P, run: RunContext, episodeLength: number, events: readonly ScenarioEventType[]) {
    this.profile = profile;
    this.rng = new CounterRng(run.key);
    this.schedule = new ScenarioSchedule(run.scenario, events.map((event) => event.type), run.key, episodeLength);
    this.sequence = new SequenceCounter(episodeLength);
  }

  /** Engine 4: the next record opens sequence `sequenceId` (SubjectSimulator). */
  seek(sequenceId: number): void {
    this.sequence.seek(sequenceId);
  }

  /** Engine 4: where at_time event k starts in the sequence about to run (SubjectSimulator). */
  setEventStart(k: number, step: number): void {
    this.schedule.setStart(k, step);
  }

  /** Engine 4 in time order: events count once their record is printed (SubjectSimulator). */
  holdScenarioNotes(): void {
    this.schedule.holdNotes();
  }

  /** Engine 4 in time order: the record made last was printed (SubjectSimulator). */
  confirmScenarioNote(): void {
    this.schedule.confirm();
  }

  /** Engine 4: whether the last record written ended its sequence (SubjectSimulator). */
  get sequenceEnded(): boolean {
    return this.sequence.sequenceEnded;
  }

  /** What the run made of its scenario so far (Simulator.scenarioOutcome). */
  scenarioOutcome(): ScenarioOutcome {
    return this.schedule.outcome();
  }

  /** The index of the event active at `step` of the current sequence, or -1. */
  protected eventAt(step: number): number {
    return this.targeted ? this.schedule.activeAt(step) : -1;
  }
}
