import type { ScenarioOutcome } from '../scenario.ts';
import { mergeScenarioOutcomes } from './mergeScenarioOutcomes.ts';
import type { Simulator } from '../simulator.ts';
import { InstantHeap } from './InstantHeap.ts';
import type { SubjectArrivals } from './SubjectArrivals.ts';
import type { TimedSubject } from './TimedSubject.ts';

// A heap entry's payload: a subject's index (its next record), or a place freed by a targeted sequence's
// shadow end (SubjectArrivals.freedBy).
const FREED = -1;

/**
 * Engine 4 in `order: "time"`: the records of a population of subjects merged in event_time order (ties
 * by sequence_id), interaction_id numbering that order (docs/api.md#event-time). Each live subject is an
 * independent simulator positioned at its own sequence (TimedSubject) holding its next record; a binary
 * heap of those records (and of places freed by a targeted sequence's shadow end) gives the next one. When
 * a subject's sequence ends, its place takes the next sequence_id. Memory is the live subjects, never the
 * run: a run of any length holds about `population` subjects and heap entries.
 */
export class TimeOrderSimulator implements Simulator {
  readonly values: Float64Array;
  private readonly heap = new InstantHeap();
  private readonly subjects: TimedSubject[] = [];
  private readonly spare: number[] = [];
  /** Per subject: whether its own end frees its place (no event targets its sequence). */
  private ownEnd = new Uint8Array(0);
  private lastId = 0;
  private count = 0;

  private readonly makeSubject: () => TimedSubject;
  private readonly arrivals: SubjectArrivals;
  private readonly population: number;

  /** What the run made of its scenario so far (Simulator.scenarioOutcome). */
  scenarioOutcome(): ScenarioOutcome {
    return mergeScenarioOutcomes(this.subjects.map((subject) => subject.scenarioOutcome()));
  }

  constructor(makeSubject: () => TimedSubject, arrivals: SubjectArrivals, population: number, width: number) {
    this.makeSubject = makeSubject;
    this.arrivals = arrivals;
    this.population = population;
    this.values = new Float64Array(width);
  }

  next(): void {
    const heap = this.heap;
    if (this.count === 0) {
      for (let id = 1; id <= this.population; id++) this.admit(id, this.arrivals.initial(id));
      this.lastId = this.population;
    }
    for (;;) {
      const slot = heap.topPayload;
      const time = heap.topTime;
      heap.pop();
      if (slot === FREED) {
        this.admitNext(time);
        continue;
      }
      const subject = this.subjects[slot]!;
      this.values.set(subject.values);
      this.values[1] = ++this.count;
      if (subject.last) {
        this.spare.push(slot);
        if (this.ownEnd[slot] === 1) this.admitNext(time);
      } else {
        subject.next();
        heap.push(subject.time, subject.sequenceId, slot);
      }
      return;
    }
  }

  private admitNext(freedAt: number): void {
    const id = ++this.lastId;
    this.admit(id, this.arrivals.after(id, freedAt));
  }

  private admit(id: number, arrival: number): void {
    let slot = this.spare.pop();
    if (slot === undefined) {
      slot = this.subjects.length;
      this.subjects.push(this.makeSubject());
      if (slot >= this.ownEnd.length) {
        const grown = new Uint8Array(Math.max(64, 2 * this.ownEnd.length));
        grown.set(this.ownEnd);
        this.ownEnd = grown;
      }
    }
    const freesAt = this.arrivals.freedBy(id, arrival);
    this.ownEnd[slot] = freesAt < 0 ? 1 : 0;
    if (freesAt >= 0) this.heap.push(freesAt, id, FREED);
    const subject = this.subjects[slot]!;
    subject.start(id, arrival);
    this.arrivals.placeEvents(subject);
    subject.next();
    this.heap.push(subject.time, id, slot);
  }
}
