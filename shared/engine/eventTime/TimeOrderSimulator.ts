import type { ScenarioOutcome } from '../scenario.ts';
import { mergeScenarioOutcomes } from './mergeScenarioOutcomes.ts';
import type { Simulator } from '../simulator.ts';
import { InstantHeap } from './InstantHeap.ts';
import { RecordsAhead } from './RecordsAhead.ts';
import type { SubjectArrivals } from './SubjectArrivals.ts';
import type { TimedSubject } from './TimedSubject.ts';

// A heap entry's payload: a subject's index (its next record), a place freed by a targeted sequence's
// shadow end (SubjectArrivals.freedBy), or, below that, the arrival of sequence -payload - 1 (one of the
// first population, in a run without a scenario).
const FREED = -1;

// Records a subject makes ahead of the merge at most (RecordsAhead): enough to pay a cold subject's cache
// misses once for several records, few enough that 10,000 subjects' batches take a few MiB. A batch is
// also kept to the subjects' share of the records the run can still print, so that few records are made
// and never printed (a run of 100,000 records with 10,000 subjects prints about ten per subject).
const BATCH = 8;

/**
 * Engine 4 in `order: "time"`: the records of a population of subjects merged in event_time order (ties
 * by sequence_id), interaction_id numbering that order (docs/api.md#event-time). Each live subject is an
 * independent simulator positioned at its own sequence (TimedSubject) whose next records wait in its place
 * (RecordsAhead); a binary heap of each place's next record (InstantHeap; and of places freed by a
 * targeted sequence's shadow end) gives the next one. When a subject's sequence ends, its place takes the
 * next sequence_id. Memory is the live subjects, never the run: a run of any length holds about
 * `population` subjects, their records made ahead and heap entries.
 *
 * A run with a scenario makes one record ahead, as engine 4 was released with: a place freed by a shadow
 * end may tie with a record in the heap, so the order depends on the heap's exact pops and pushes. Its
 * subjects count an event in the scenario outcome only once the merge prints a record it labels (a record
 * made ahead may never be: the run ends first).
 */
export class TimeOrderSimulator implements Simulator {
  readonly values: Float64Array;
  private readonly heap: InstantHeap;
  private readonly subjects: TimedSubject[] = [];
  private readonly spare: number[] = [];
  private readonly ahead: RecordsAhead;
  /** Per subject: whether its own end frees its place (no event targets its sequence). */
  private ownEnd: Uint8Array;
  private lastId = 0;
  private count = 0;

  /** No scenario: no place is freed by a shadow end (no two heap entries share instant and id), no outcome. */
  private readonly plain: boolean;

  private readonly makeSubject: () => TimedSubject;
  private readonly arrivals: SubjectArrivals;
  private readonly population: number;
  /** The records the run takes (RunContext.count). */
  private readonly runCount: number;

  /** What the run made of its scenario so far (Simulator.scenarioOutcome). */
  scenarioOutcome(): ScenarioOutcome {
    return mergeScenarioOutcomes(this.subjects.map((subject) => subject.scenarioOutcome()));
  }

  constructor(makeSubject: () => TimedSubject, arrivals: SubjectArrivals, population: number, width: number, runCount: number) {
    this.makeSubject = makeSubject;
    this.arrivals = arrivals;
    this.population = population;
    this.runCount = runCount;
    this.plain = !arrivals.shadowed;
    // Each subject's next record or arrival, and a freed place per targeted sequence at most.
    this.heap = new InstantHeap(this.plain ? population : 2 * population);
    this.ahead = new RecordsAhead(width, this.plain ? BATCH : 1, population);
    this.ownEnd = new Uint8Array(population);
    this.values = new Float64Array(width);
  }

  next(): void {
    const heap = this.heap;
    if (this.count === 0) this.admitPopulation();
    for (;;) {
      const slot = heap.topPayload;
      if (slot < 0) {
        const time = heap.topTime;
        heap.pop();
        if (slot === FREED) this.admitNext(time);
        else this.admit(-slot - 1, time);
        continue;
      }
      const ahead = this.ahead;
      const values = this.values;
      ahead.take(slot, values, ++this.count);
      if (!this.plain) this.subjects[slot]!.confirmScenarioNote();
      if (!ahead.hasMore(slot) && ahead.ended(slot)) {
        heap.pop();
        this.spare.push(slot);
        if (this.ownEnd[slot] === 1) this.admitNext(values[2]!);
        return;
      }
      const time = ahead.hasMore(slot) ? ahead.nextTime(slot) : ahead.fill(slot, this.subjects[slot]!, this.batchLimit());
      const id = values[0]!;
      // The place's next record takes the printed one's place in the heap, in one pass when no freed place
      // can tie with a record (InstantHeap: ties leave in the order a pop and a push give them).
      if (this.plain) {
        heap.replaceTop(time, id, slot);
      } else {
        heap.pop();
        heap.push(time, id, slot);
      }
      return;
    }
  }

  /**
   * The first `population` sequences. With a scenario they are all made at once, as engine 4 was released
   * with (the heap's ties depend on its pushes). Without one, each waits in the heap at its arrival and is
   * made when the merge reaches it: its first record is at or after its arrival (every clock's is), so the
   * records come in the same order, and a run that ends before a subject arrives never makes it (a
   * 100,000-record finance run with 10,000 accounts arriving over four weeks ends in the second).
   */
  private admitPopulation(): void {
    for (let id = 1; id <= this.population; id++) {
      const arrival = this.arrivals.initial(id);
      if (this.plain) this.heap.push(arrival, id, -1 - id);
      else this.admit(id, arrival);
    }
    this.lastId = this.population;
  }

  private admitNext(freedAt: number): void {
    const id = ++this.lastId;
    this.admit(id, this.arrivals.after(id, freedAt));
  }

  private admit(id: number, arrival: number): void {
    let slot = this.spare.pop();
    if (slot === undefined) {
      slot = this.subjects.length;
      const made = this.makeSubject();
      if (!this.plain) made.holdScenarioNotes();
      this.subjects.push(made);
      this.ahead.reserve(slot);
      if (slot >= this.ownEnd.length) {
        const grown = new Uint8Array(2 * this.ownEnd.length);
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
    const first = this.ahead.fill(slot, subject, this.batchLimit());
    if (first < arrival) throw new Error(`sequence ${id}'s first record is before its arrival`);
    this.heap.push(first, id, slot);
  }

  /** How many records a subject makes ahead now: one with a scenario, else the live subjects' share of what is left. */
  private batchLimit(): number {
    return this.plain ? Math.ceil((this.runCount - this.count) / Math.max(1, this.subjects.length - this.spare.length)) : 1;
  }
}
