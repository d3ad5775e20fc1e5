// An entry is three numbers side by side (instant, sequence_id, payload), so an entry and its sibling share
// a cache line or two instead of one line per array: with 10,000 live subjects the heap outgrows the
// first-level cache.
const STRIDE = 3;

/**
 * A binary min-heap of (instant, sequence_id, payload) entries ordered by instant, then sequence_id: the
 * order of engine 4's time-ordered runs (ties by sequence_id) and of its subjects' freed places. One typed
 * array, grown by doubling, so a run of any length allocates nothing per record.
 *
 * Entries with equal instant and id (a place freed by a targeted sequence's shadow end, and that
 * sequence's last record at the same instant) leave in the order this heap's pushes and pops put them in,
 * and a time-ordered run's scenario outcome depends on it: so `push` and `pop` keep their comparisons
 * exactly as engine 4 was released with, and `replaceTop` is only for heaps whose keys are unique.
 */
export class InstantHeap {
  private entries: Float64Array;
  size = 0;

  /** `capacity`: the entries expected at most (grown by doubling beyond), so a run does not regrow it. */
  constructor(capacity = 64) {
    this.entries = new Float64Array(Math.max(capacity, 1) * STRIDE);
  }

  push(time: number, id: number, payload: number): void {
    if ((this.size + 1) * STRIDE > this.entries.length) this.grow();
    const entries = this.entries;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const at = parent * STRIDE;
      const pt = entries[at]!;
      if (pt < time || (pt === time && entries[at + 1]! <= id)) break;
      const to = i * STRIDE;
      entries[to] = pt;
      entries[to + 1] = entries[at + 1]!;
      entries[to + 2] = entries[at + 2]!;
      i = parent;
    }
    const to = i * STRIDE;
    entries[to] = time;
    entries[to + 1] = id;
    entries[to + 2] = payload;
  }

  /** The smallest entry's instant, id and payload (valid while size > 0). */
  get topTime(): number {
    return this.entries[0]!;
  }

  get topId(): number {
    return this.entries[1]!;
  }

  get topPayload(): number {
    return this.entries[2]!;
  }

  /** Removes the smallest entry. */
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const entries = this.entries;
    const last = n * STRIDE;
    this.siftDown(entries[last]!, entries[last + 1]!, entries[last + 2]!, n);
  }

  /**
   * Removes the smallest entry and adds this one: what a time-ordered run does for each record of a
   * sequence that goes on. The same entries leave in the same order as after a pop and a push while no two
   * entries share instant and id. The entry stays at the root when it is still the smallest (a session's
   * next event); otherwise it mostly belongs near the bottom (finance's accounts all record at the same
   * close), so the hole goes down to a leaf along the smaller children (one comparison a level instead of
   * two, as Floyd's heapsort) and the entry climbs from there.
   */
  replaceTop(time: number, id: number, payload: number): void {
    const entries = this.entries;
    const n = this.size;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let at = child * STRIDE;
      if (child + 1 < n) {
        const lt = entries[at]!;
        const rt = entries[at + STRIDE]!;
        if (rt < lt || (rt === lt && entries[at + STRIDE + 1]! < entries[at + 1]!)) {
          child++;
          at += STRIDE;
        }
      }
      if (i === 0) {
        const ct = entries[at]!;
        if (time < ct || (time === ct && id < entries[at + 1]!)) break;
      }
      const to = i * STRIDE;
      entries[to] = entries[at]!;
      entries[to + 1] = entries[at + 1]!;
      entries[to + 2] = entries[at + 2]!;
      i = child;
    }
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const at = parent * STRIDE;
      const pt = entries[at]!;
      if (pt < time || (pt === time && entries[at + 1]! < id)) break;
      const to = i * STRIDE;
      entries[to] = pt;
      entries[to + 1] = entries[at + 1]!;
      entries[to + 2] = entries[at + 2]!;
      i = parent;
    }
    const to = i * STRIDE;
    entries[to] = time;
    entries[to + 1] = id;
    entries[to + 2] = payload;
  }

  /** Moves an entry from the root's hole down among the first `n` entries. */
  private siftDown(time: number, id: number, payload: number, n: number): void {
    const entries = this.entries;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let at = child * STRIDE;
      let ct = entries[at]!;
      const right = child + 1;
      if (right < n) {
        const rt = entries[at + STRIDE]!;
        if (rt < ct || (rt === ct && entries[at + STRIDE + 1]! < entries[at + 1]!)) {
          child = right;
          at += STRIDE;
          ct = rt;
        }
      }
      if (time < ct || (time === ct && id <= entries[at + 1]!)) break;
      const to = i * STRIDE;
      entries[to] = ct;
      entries[to + 1] = entries[at + 1]!;
      entries[to + 2] = entries[at + 2]!;
      i = child;
    }
    const to = i * STRIDE;
    entries[to] = time;
    entries[to + 1] = id;
    entries[to + 2] = payload;
  }

  private grow(): void {
    const entries = new Float64Array(this.entries.length * 2);
    entries.set(this.entries);
    this.entries = entries;
  }
}
