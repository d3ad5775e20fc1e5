export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * The promise's outcome, or TIMED_OUT once `ms` have passed, whichever comes first. The timer never
 * outlives the race, so a bounded wait leaves nothing that keeps the process alive.
 */
export const raceTimeout = async <T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};
