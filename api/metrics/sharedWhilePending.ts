/**
 * Callers that arrive while a `load` is under way share it. prom-client starts every metric's collect in
 * the same tick of a scrape, so the gauges fed by one Redis read send one command per scrape, and the
 * next scrape reads afresh.
 */
export const sharedWhilePending = <T>(load: () => Promise<T>): (() => Promise<T>) => {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending === undefined) {
      const current = load().finally(() => {
        if (pending === current) {
          pending = undefined;
        }
      });
      pending = current;
    }
    return pending;
  };
};
