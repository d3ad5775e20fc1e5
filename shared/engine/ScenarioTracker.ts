import { engineModelOf } from './engineModelOf.ts';
import type { RunInput } from './presetTypes.ts';
import { runKey } from './runKey.ts';
import type { ScenarioOutcome } from './scenario.ts';
import { ScenarioSchedule } from './scenarioSchedule.ts';

/**
 * A run's scenario schedule replayed over its records, read one at a time (their sequence_id only): the
 * records a consumer streams (the dataset archive) tell it which event covers each record and, at the
 * end, the run's `placed` and `unplaced`, without the model and without holding the run. The schedule is
 * the engine's own, so the answer is the one the result's echo prints.
 */
export class ScenarioTracker {
  private readonly schedule: ScenarioSchedule;
  private sequenceId = 0;
  private targeted = false;
  /** The position within its sequence of the record last counted (1 on a sequence's first). */
  step = 0;

  constructor(input: RunInput) {
    const { model } = engineModelOf(input);
    if (model.scenarioEvents === undefined) throw new RangeError('scenarios need engine 3 or later');
    this.schedule = new ScenarioSchedule(
      input.scenario,
      model.scenarioEvents.map((event) => event.type),
      runKey(input),
      model.episodeLength,
    );
  }

  /**
   * Counts the next record (of this sequence) and answers which event covers it: an index that stays the
   * same over one event's records of a sequence (two events never share it), or -1 for none.
   */
  record(sequenceId: number): number {
    if (sequenceId !== this.sequenceId) {
      this.sequenceId = sequenceId;
      this.step = 0;
      this.targeted = this.schedule.enter(sequenceId);
    }
    this.step++;
    return this.targeted ? this.schedule.activeAt(this.step) : -1;
  }

  outcome(): ScenarioOutcome {
    return this.schedule.outcome();
  }
}
