/** A record waiting for its delivery time (EnvelopeStream). */
export interface PendingDelivery {
  /** Delivery time, ms since the epoch: event_time plus the drawn delay. */
  readonly deliveryMs: number;
  readonly interactionId: number;
  /** 1 for the second delivery of a record, else 0: the copy sorts after its original. */
  readonly copy: number;
  readonly eventMs: number;
  /** Where the record's values are held (HeldRecords). */
  readonly slot: number;
}

const before = (a: PendingDelivery, b: PendingDelivery): boolean =>
  a.deliveryMs !== b.deliveryMs ? a.deliveryMs < b.deliveryMs : a.interactionId !== b.interactionId ? a.interactionId < b.interactionId : a.copy < b.copy;

/**
 * A binary min-heap in delivery order: time, then interaction_id, then the copy after its original. The
 * order is total, so the delivery order is a function of the records alone.
 */
export class DeliveryHeap {
  private readonly items: PendingDelivery[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): PendingDelivery | undefined {
    return this.items[0];
  }

  push(item: PendingDelivery): void {
    const items = this.items;
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(item, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): PendingDelivery | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && before(items[right]!, items[left]!) ? right : left;
      if (!before(items[child]!, last)) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
