import type { TimedSubject } from './TimedSubject.ts';

/**
 * The records a time-ordered run's subjects made ahead of the merge, per place (a live subject's index):
 * up to `batch` consecutive records of the place's sequence in engine 4's layout, side by side in one typed
 * array. A subject whose record is printed is mostly one the merge has not touched for a while (with 10,000
 * of them, one of 10,000), and its engine-3 simulator and clock are some twenty small objects spread over
 * the heap: making its next `batch` records in one go pays those cache misses once per batch instead of once
 * per record, and the merge then reads a record from here (docs/benchmarks/engine-4.md).
 */
export class RecordsAhead {
  private records = new Float64Array(0);
  /** Per place: the next record to print, how many were made, whether the last made ends the sequence. */
  private next = new Int32Array(0);
  private made = new Int32Array(0);
  private ending = new Uint8Array(0);

  private readonly width: number;
  private readonly batch: number;
  private readonly stride: number;

  /** `places`: how many places the run is expected to hold (its population), made room for at once. */
  constructor(width: number, batch: number, places: number) {
    this.width = width;
    this.batch = batch;
    this.stride = width * batch;
    this.reserve(places - 1);
  }

  /** Makes room for place `place` (places are numbered from 0 as subjects are made). */
  reserve(place: number): void {
    if (place < this.next.length) return;
    const places = Math.max(place + 1, 2 * this.next.length);
    const grow = <T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.records = grow(this.records, new Float64Array(places * this.stride));
    this.next = grow(this.next, new Int32Array(places));
    this.made = grow(this.made, new Int32Array(places));
    this.ending = grow(this.ending, new Uint8Array(places));
  }

  /**
   * Makes the place's subject's next records (up to `limit`, at most the batch, stopping at its sequence's
   * end) and returns the first one's instant.
   */
  fill(place: number, subject: TimedSubject, limit: number): number {
    const records = this.records;
    const start = place * this.stride;
    const most = Math.min(limit, this.batch);
    let made = 0;
    do {
      subject.next();
      subject.writeRecord(records, start + made * this.width, 0);
    } while (++made < most && !subject.last);
    this.next[place] = 0;
    this.made[place] = made;
    this.ending[place] = subject.last ? 1 : 0;
    return records[start + 2]!;
  }

  /** Copies the place's next record into `to`, numbered `interactionId`. */
  take(place: number, to: Float64Array, interactionId: number): void {
    const records = this.records;
    const width = this.width;
    const at = place * this.stride + this.next[place]! * width;
    for (let j = 0; j < width; j++) to[j] = records[at + j]!;
    to[1] = interactionId;
    this.next[place]!++;
  }

  /** Whether records made ahead are left at the place (after `take`). */
  hasMore(place: number): boolean {
    return this.next[place]! < this.made[place]!;
  }

  /** The instant of the place's next record (while hasMore). */
  nextTime(place: number): number {
    return this.records[place * this.stride + this.next[place]! * this.width + 2]!;
  }

  /** Whether the last record made at the place ended its sequence. */
  ended(place: number): boolean {
    return this.ending[place] === 1;
  }
}
