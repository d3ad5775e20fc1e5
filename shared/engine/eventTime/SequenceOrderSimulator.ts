import type { ScenarioOutcome } from '../scenario.ts';
import { mergeScenarioOutcomes } from './mergeScenarioOutcomes.ts';
import type { Simulator } from '../simulator.ts';
import { InstantHeap } from './InstantHeap.ts';
import type { SubjectArrivals } from './SubjectArrivals.ts';
import type { TimedSubject } from './TimedSubject.ts';

/**
 * Engine 4 in `order: "sequence"`: one sequence after another, as engines 1-3, each record stamped with
 * its instant; the sequences' arrivals come from the population's places (SubjectArrivals), which a heap
 * of the places' freeing instants hands out in order. Holds one subject and `population` instants.
 */
export class SequenceOrderSimulator implements Simulator {
  readonly values: Float64Array;
  private readonly freed = new InstantHeap();
  private lastId = 0;
  private count = 0;
  private freesAt = -1;

  private readonly subject: TimedSubject;
  private readonly arrivals: SubjectArrivals;
  private readonly population: number;

  /** What the run made of its scenario so far (Simulator.scenarioOutcome). */
  scenarioOutcome(): ScenarioOutcome {
    return mergeScenarioOutcomes([this.subject.scenarioOutcome()]);
  }

  constructor(subject: TimedSubject, arrivals: SubjectArrivals, population: number, width: number) {
    this.subject = subject;
    this.arrivals = arrivals;
    this.population = population;
    this.values = new Float64Array(width);
  }

  next(): void {
    const subject = this.subject;
    if (this.count === 0 || subject.last) {
      const id = ++this.lastId;
      let arrival: number;
      if (id <= this.population) {
        arrival = this.arrivals.initial(id);
      } else {
        arrival = this.arrivals.after(id, this.freed.topTime);
        this.freed.pop();
      }
      this.freesAt = this.arrivals.freedBy(id, arrival);
      subject.start(id, arrival);
      this.arrivals.placeEvents(subject);
    }
    subject.next();
    subject.writeRecord(this.values, 0, ++this.count);
    if (subject.last) this.freed.push(this.freesAt < 0 ? subject.time : this.freesAt, subject.sequenceId, 0);
  }
}
