/** What a streamed response turned out to be, read without holding its body. */
export interface StreamedBody {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: number;
  /** Occurrences of `needle` across the whole body, chunk boundaries included. */
  readonly count: number;
  /** The body's first and last bytes, for checks on its envelope. */
  readonly head: string;
  readonly tail: string;
  /** Set when the body ended without its terminating chunk (the connection was cut). */
  readonly error?: Error;
}

/**
 * POSTs a simulation and reads the body as it streams, counting `needle` without keeping the body, so a
 * 1,000,000-record run costs the test no memory. `onFirstBytes` runs once the first body bytes are in.
 */
export const streamSimulation = async (
  url: string,
  init: { key: string; body: unknown; accept?: string; needle: string; signal?: AbortSignal; onFirstBytes?: () => void },
): Promise<StreamedBody> => {
  const response = await fetch(`${url}/v1/simulations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${init.key}`, 'Content-Type': 'application/json', ...(init.accept === undefined ? {} : { Accept: init.accept }) },
    body: JSON.stringify(init.body),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });
  const needle = Buffer.from(init.needle);
  let bytes = 0;
  let count = 0;
  let carry = Buffer.alloc(0);
  let head = '';
  let tail = Buffer.alloc(0);
  let error: Error | undefined;
  try {
    for await (const chunk of response.body ?? []) {
      const data = Buffer.from(chunk as Uint8Array);
      if (bytes === 0) {
        head = data.subarray(0, 300).toString('utf8');
        init.onFirstBytes?.();
      }
      bytes += data.length;
      const window = Buffer.concat([carry, data]);
      for (let at = window.indexOf(needle); at !== -1; at = window.indexOf(needle, at + needle.length)) {
        count++;
      }
      // Keep less than a needle's length, so a match split across chunks counts once.
      carry = window.subarray(Math.max(0, window.length - (needle.length - 1)));
      tail = Buffer.concat([tail, data]).subarray(-300);
    }
  } catch (thrown) {
    error = thrown instanceof Error ? thrown : new Error(String(thrown));
  }
  return { status: response.status, headers: response.headers, bytes, count, head, tail: tail.toString('utf8'), ...(error === undefined ? {} : { error }) };
};
