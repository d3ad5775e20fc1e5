/**
 * A binary min-heap of (instant, sequence_id, payload) entries ordered by instant, then sequence_id: the
 * order of engine 4's time-ordered runs (ties by sequence_id) and of its subjects' freed places. Parallel
 * typed arrays, grown by doubling, so a run of any length allocates nothing per record.
 */
export class InstantHeap {
  private times = new Float64Array(64);
  private ids = new Float64Array(64);
  private payloads = new Int32Array(64);
  size = 0;

  push(time: number, id: number, payload: number): void {
    if (this.size === this.times.length) this.grow();
    let i = this.size++;
    const times = this.times;
    const ids = this.ids;
    const payloads = this.payloads;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < time || (pt === time && ids[parent]! <= id)) break;
      times[i] = pt;
      ids[i] = ids[parent]!;
      payloads[i] = payloads[parent]!;
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
    payloads[i] = payload;
  }

  /** The smallest entry's instant, id and payload (valid while size > 0). */
  get topTime(): number {
    return this.times[0]!;
  }

  get topId(): number {
    return this.ids[0]!;
  }

  get topPayload(): number {
    return this.payloads[0]!;
  }

  /** Removes the smallest entry. */
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const times = this.times;
    const ids = this.ids;
    const payloads = this.payloads;
    const time = times[n]!;
    const id = ids[n]!;
    const payload = payloads[n]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && (times[right]! < times[child]! || (times[right] === times[child] && ids[right]! < ids[child]!))) child = right;
      const ct = times[child]!;
      if (time < ct || (time === ct && id <= ids[child]!)) break;
      times[i] = ct;
      ids[i] = ids[child]!;
      payloads[i] = payloads[child]!;
      i = child;
    }
    times[i] = time;
    ids[i] = id;
    payloads[i] = payload;
  }

  private grow(): void {
    const size = this.times.length * 2;
    const times = new Float64Array(size);
    const ids = new Float64Array(size);
    const payloads = new Int32Array(size);
    times.set(this.times);
    ids.set(this.ids);
    payloads.set(this.payloads);
    this.times = times;
    this.ids = ids;
    this.payloads = payloads;
  }
}
