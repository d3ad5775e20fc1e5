/**
 * Measurements of body lengths in flight in this process, one per ETag: requests that need a length not
 * known yet (HEAD, a suffix or open-ended range) share the one run that measures it instead of each making
 * the whole body (32 HEADs at once would otherwise be 32 runs of the same records).
 */
export interface LengthMeasurements {
  /** The length `measure` finds for `tag`, measured once however many ask at the same time. */
  readonly measure: (tag: string, measure: () => Promise<number>) => Promise<number>;
}

export const createLengthMeasurements = (): LengthMeasurements => {
  const inFlight = new Map<string, Promise<number>>();
  return {
    measure: (tag, measure) => {
      const running = inFlight.get(tag);
      if (running !== undefined) {
        return running;
      }
      const measuring = measure().finally(() => inFlight.delete(tag));
      inFlight.set(tag, measuring);
      return measuring;
    },
  };
};
