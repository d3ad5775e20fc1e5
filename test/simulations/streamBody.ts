import { createHash } from 'node:crypto';

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
  /**
   * With `digest`: SHA-256 of the body with a JSON envelope's compute_ms read as 0 (the one field two makings
   * of a run may differ in), so equal digests mean byte-identical runs.
   */
  readonly digest?: string;
}

/** The last bytes of a body, where a JSON envelope's metadata (and its compute_ms) lies, are hashed apart. */
const TAIL_BYTES = 400;

/**
 * POSTs a simulation and reads the body as it streams, counting `needle` without keeping the body, so a
 * 1,000,000-record run costs the test no memory. `onFirstBytes` runs once the first body bytes are in.
 */
export const streamSimulation = async (
  url: string,
  init: {
    key: string;
    body?: unknown;
    accept?: string;
    needle: string;
    signal?: AbortSignal;
    onFirstBytes?: () => void;
    /** Called with the body's length so far after each piece. */
    onBytes?: (bytes: number) => void;
    digest?: boolean;
    /** GET this path instead of POSTing a simulation (a replay, `/v1/simulations/<id>/records`). */
    path?: string;
  },
): Promise<StreamedBody> => {
  const response = await fetch(`${url}${init.path ?? '/v1/simulations'}`, {
    method: init.path === undefined ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${init.key}`, 'Content-Type': 'application/json', ...(init.accept === undefined ? {} : { Accept: init.accept }) },
    ...(init.path === undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });
  const needle = Buffer.from(init.needle);
  let bytes = 0;
  let count = 0;
  let carry = Buffer.alloc(0);
  let head = '';
  let tail = Buffer.alloc(0);
  let error: Error | undefined;
  const hash = init.digest === true ? createHash('sha256') : undefined;
  // Bytes not hashed yet: the body's last TAIL_BYTES are hashed at the end, compute_ms read as 0.
  let unhashed = Buffer.alloc(0);
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
      if (hash !== undefined) {
        unhashed = Buffer.concat([unhashed, data]);
        if (unhashed.length > TAIL_BYTES) {
          hash.update(unhashed.subarray(0, unhashed.length - TAIL_BYTES));
          unhashed = unhashed.subarray(unhashed.length - TAIL_BYTES);
        }
      }
      init.onBytes?.(bytes);
    }
  } catch (thrown) {
    error = thrown instanceof Error ? thrown : new Error(String(thrown));
  }
  const digest = hash?.update(unhashed.toString('latin1').replace(/"compute_ms":\d+/, '"compute_ms":0'), 'latin1').digest('hex');
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    count,
    head,
    tail: tail.toString('utf8'),
    ...(error === undefined ? {} : { error }),
    ...(digest === undefined ? {} : { digest }),
  };
};
