import http from 'node:http';

export interface Answer {
  /** HTTP status, 0 when the connection failed or timed out. */
  readonly status: number;
  /** From sending the request to the body's last byte (or the failure). */
  readonly ms: number;
}

export interface Target {
  readonly url: string;
  readonly key: string;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

const CLIENT_TIMEOUT_MS = 120_000;

const send = (target: Target): http.ClientRequest => {
  const payload = Buffer.from(JSON.stringify(target.body));
  const request = http.request(target.url, {
    method: 'POST',
    agent: false,
    timeout: CLIENT_TIMEOUT_MS,
    headers: { 'content-type': 'application/json', 'content-length': payload.length, authorization: `Bearer ${target.key}`, ...target.headers },
  });
  request.on('timeout', () => request.destroy(new Error('client timeout')));
  request.end(payload);
  return request;
};

/** One request read to its end: its status and how long the whole answer took. */
export const timedRequest = (target: Target): Promise<Answer> =>
  new Promise((resolve) => {
    const sent = performance.now();
    const request = send(target);
    request.on('response', (response) => {
      response.on('data', () => {});
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - sent }));
      response.on('error', () => resolve({ status: 0, ms: performance.now() - sent }));
    });
    request.on('error', () => resolve({ status: 0, ms: performance.now() - sent }));
  });

/** Requests started at a steady pace for `seconds` (open loop: a slow answer does not delay the next), all answered. */
export const pacedRequests = async (target: Target, seconds: number, perSecond: number): Promise<Answer[]> => {
  const answers: Promise<Answer>[] = [];
  const started = performance.now();
  for (let index = 0; index < Math.round(seconds * perSecond); index += 1) {
    const wait = started + (index * 1000) / perSecond - performance.now();
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    answers.push(timedRequest(target));
  }
  return Promise.all(answers);
};

export interface StalledStreams {
  /** Resolves when a stream has received its first records (a thread is making it), or false after `ms`. */
  readonly firstBytes: (ms: number) => Promise<boolean>;
  /** Streams the service began (200) and attempts it answered otherwise, by status. */
  readonly counts: () => { held: number; refused: Map<number, number> };
  /** Stops opening streams and hangs up on every one held. */
  readonly stop: () => void;
}

/**
 * One account holding its whole plan concurrency in streamed runs whose client reads the first bytes and
 * then stops reading: the response is paused, the socket's buffers fill and the service must wait on it.
 * A paused socket cannot tell when the service ends its run (it reads nothing, EOF included), so the client
 * opens `count` streams and then tries one more every `retryMs` for as long as the load lasts: while the
 * account's slots are all held the try is refused (429, cheap), and a slot the service frees is taken
 * again at once.
 */
export const holdStalledStreams = (target: Target, count: number, retryMs = 250): StalledStreams => {
  let running = true;
  let held = 0;
  const refused = new Map<number, number>();
  const open = new Set<http.ClientRequest>();
  let onBytes: () => void = () => {};
  const bytes = new Promise<void>((resolve) => {
    onBytes = resolve;
  });
  const openOne = (): Promise<void> =>
    new Promise((resolve) => {
      const request = send(target);
      open.add(request);
      const refusedWith = (status: number): void => {
        open.delete(request);
        refused.set(status, (refused.get(status) ?? 0) + 1);
        resolve();
      };
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.resume();
          response.on('close', () => refusedWith(status));
          return;
        }
        held += 1;
        response.once('data', () => {
          // Stop reading: nothing more is taken from the socket while the response stays paused.
          response.pause();
          onBytes();
        });
        resolve();
      });
      request.on('error', () => refusedWith(0));
    });
  const keepTrying = async (): Promise<void> => {
    while (running) {
      await openOne();
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  for (let index = 0; index < count; index += 1) {
    void openOne();
  }
  void keepTrying();
  return {
    firstBytes: (ms) => Promise.race([bytes.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]),
    counts: () => ({ held, refused }),
    stop: () => {
      running = false;
      for (const request of open) {
        request.destroy();
      }
    },
  };
};
