import http from 'node:http';
import autocannon from 'autocannon';

export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole ms). */
  readonly p50: number;
  readonly p99: number;
  readonly failures: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

const percentile = (sorted: readonly number[], fraction: number): number =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN);

const summarize = (latencies: number[], seconds: number, failures: number): LoadResult => {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures,
  };
};

/** autocannon with `connections` keep-alive connections, for `duration` seconds or `amount` requests. */
export const runLoad = async (
  options: LoadOptions & { connections: number; duration?: number; amount?: number },
): Promise<LoadResult> => {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const instance = autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.duration ?? 10 } : { amount: options.amount }),
    headers: { 'content-type': 'application/json', ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode === 200) {
      latencies.push(responseTime);
    } else {
      failures += 1;
    }
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  return summarize(latencies, seconds, failures + result.errors + result.timeouts);
};

/** One connection, one request at a time: the latency a lone caller sees. */
export const runSequential = async (options: LoadOptions & { seconds: number }): Promise<LoadResult> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(options.url);
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const once = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          agent,
          method: options.method ?? 'GET',
          headers: { ...options.headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': payload.length }) },
        },
        (response) => {
          response.on('data', () => {});
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const until = started + options.seconds * 1000;
  while (performance.now() < until) {
    const sent = performance.now();
    const status = await once();
    if (status === 200) {
      latencies.push(performance.now() - sent);
    } else {
      failures += 1;
    }
  }
  agent.destroy();
  return summarize(latencies, (performance.now() - started) / 1000, failures);
};
