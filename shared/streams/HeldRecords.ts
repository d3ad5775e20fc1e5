/**
 * The slots of the records a stream holds until their delivery time (EnvelopeStream): each record's
 * values copied into one growing Float64Array, so holding a record allocates nothing and it is printed
 * from its numbers when delivered. A record delivered twice is held once, for both deliveries.
 */
export class HeldRecords {
  private readonly width: number;
  private slab: Float64Array;
  /** Deliveries still to print per slot; 0 for a free slot. */
  private deliveries: Uint8Array;
  private readonly free: number[] = [];
  private used = 0;

  constructor(width: number) {
    this.width = width;
    this.slab = new Float64Array(width * 64);
    this.deliveries = new Uint8Array(64);
  }

  /** The values of every slot: slot s starts at s × width. Replaced when it grows, so read it after hold(). */
  get values(): Float64Array {
    return this.slab;
  }

  /** Copies a record's values into a slot, held for `deliveries` (1 or 2) deliveries; returns the slot. */
  hold(values: Float64Array, deliveries: number): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.used++;
      if (slot === this.deliveries.length) this.grow();
    }
    // A plain loop: a record is a dozen slots, and subarray() would make a view object per record.
    const slab = this.slab;
    const base = slot * this.width;
    for (let j = 0; j < this.width; j++) slab[base + j] = values[j]!;
    this.deliveries[slot] = deliveries;
    return slot;
  }

  /** One delivery of the slot's record is printed; the slot is free after its last. */
  release(slot: number): void {
    const left = this.deliveries[slot]! - 1;
    this.deliveries[slot] = left;
    if (left === 0) this.free.push(slot);
  }

  private grow(): void {
    const slab = new Float64Array(this.slab.length * 2);
    slab.set(this.slab);
    this.slab = slab;
    const deliveries = new Uint8Array(this.deliveries.length * 2);
    deliveries.set(this.deliveries);
    this.deliveries = deliveries;
  }
}
