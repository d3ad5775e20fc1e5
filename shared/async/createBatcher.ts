interface Pending<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (reason: unknown) => void;
}

/**
 * Group commit for one kind of write: `flush` writes many items in one statement and returns one result
 * per item, in order. When no flush is in flight an item is flushed at once (no added wait when idle);
 * items arriving while one is in flight gather and go together in the next one, so under load the cost of
 * a statement and its commit is shared by many requests. A failed flush fails every item of its batch.
 */
export const createBatcher = <I, O>(flush: (items: readonly I[]) => Promise<readonly O[]>, maxBatch = 500): ((item: I) => Promise<O>) => {
  let pending: Pending<I, O>[] = [];
  let flushing = false;

  const drain = async (): Promise<void> => {
    flushing = true;
    try {
      while (pending.length > 0) {
        const batch = pending.length <= maxBatch ? pending : pending.slice(0, maxBatch);
        pending = pending.length <= maxBatch ? [] : pending.slice(maxBatch);
        try {
          const results = await flush(batch.map((entry) => entry.item));
          batch.forEach((entry, index) => entry.resolve(results[index] as O));
        } catch (error) {
          for (const entry of batch) {
            entry.reject(error);
          }
        }
      }
    } finally {
      flushing = false;
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (!flushing) {
        void drain();
      }
    });
};
