/** Polls `check` until it returns a value (not undefined), or throws after `timeoutMs`. */
export const eventually = async <T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 12_000, intervalMs = 100): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
