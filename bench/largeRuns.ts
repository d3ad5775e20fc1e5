import { readFile } from 'node:fs/promises';
import http from 'node:http';
import zlib from 'node:zlib';
import type { RedisClient } from '../shared/redis/createRedis.ts';
import type { OutputFormat } from '../shared/engine/index.ts';
import { writeRunAlone } from './writeRunAlone.ts';

const MILLION = 1_000_000;
const ACCEPT: Readonly<Record<OutputFormat, string>> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
  parquet: 'application/vnd.apache.parquet',
};

const rssOf = async (pid: number): Promise<number> => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;
  } catch {
    return Number.NaN;
  }
};

export interface LargeRunRow {
  readonly format: OutputFormat;
  /** The content coding asked for and received (`identity` when none). */
  readonly coding: 'identity' | 'zstd';
  /** Bytes on the wire: the coded body when coded. */
  readonly bytes: number;
  readonly firstByteMs: number;
  readonly totalMs: number;
  readonly aloneMs: number;
  /** The engine alone printing the same run as JSON, right after: the baseline for every format. */
  readonly jsonAloneMs: number;
  readonly peakRss: Readonly<Record<string, number>>;
  /** Each process's RSS just before the run. */
  readonly startRss: Readonly<Record<string, number>>;
  readonly redisPeakBytes: number;
  readonly redisBaseBytes: number;
  readonly complete: boolean;
}

/**
 * A 1,000,000-record finance run through the real stack in one format, read as it streams: time to first
 * byte, total time, and (sampled every 20 ms while it runs) each process's RSS and Redis used_memory;
 * then the engine alone writing the same bytes in this thread, right after, on the same machine.
 */
export const measureLargeRun = async (options: {
  readonly apiUrl: string;
  readonly key: string;
  readonly redis: RedisClient;
  readonly pids: Readonly<Record<string, number>>;
  readonly format: OutputFormat;
  /** Asks for a zstd-coded body (Accept-Encoding); the reader decodes it to check it whole. */
  readonly coding?: 'zstd';
}): Promise<LargeRunRow> => {
  const { format } = options;
  const coding = options.coding ?? 'identity';
  let decodedBytes = 0;
  const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await options.redis.info('memory'))?.[1] ?? Number.NaN);
  const redisBaseBytes = await usedMemory();
  const peakRss: Record<string, number> = {};
  const startRss: Record<string, number> = {};
  for (const [name, pid] of Object.entries(options.pids)) {
    startRss[name] = await rssOf(pid);
  }
  let redisPeakBytes = redisBaseBytes;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const [name, pid] of Object.entries(options.pids)) {
        peakRss[name] = Math.max(peakRss[name] ?? 0, await rssOf(pid));
      }
      redisPeakBytes = Math.max(redisPeakBytes, await usedMemory());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();

  const started = performance.now();
  let firstByteMs = Number.NaN;
  let bytes = 0;
  let complete = false;
  // node:http rather than fetch: a lean client, so the figure is the service's and not the reader's.
  try {
    complete = await new Promise<boolean>((resolve, reject) => {
      const request = http.request(
        `${options.apiUrl}/v1/simulations`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.key}`,
            'content-type': 'application/json',
            accept: ACCEPT[format],
            ...(coding === 'identity' ? {} : { 'accept-encoding': coding }),
          },
        },
        (response) => {
          // A coded body is decoded as it comes (the reader's work, as a client's), to check it whole.
          const decoder = coding === 'zstd' && response.headers['content-encoding'] === 'zstd' ? zlib.createZstdDecompress() : undefined;
          decoder?.on('data', (chunk: Buffer) => {
            decodedBytes += chunk.length;
          });
          response.on('data', (chunk: Buffer) => {
            if (bytes === 0) {
              firstByteMs = performance.now() - started;
            }
            bytes += chunk.length;
            if (decoder === undefined) {
              decodedBytes += chunk.length;
            } else {
              decoder.write(chunk);
            }
          });
          response.on('end', () => {
            const whole = response.statusCode === 200 && response.complete && (coding === 'identity' || decoder !== undefined);
            if (decoder === undefined) {
              resolve(whole);
            } else {
              decoder.end(() => resolve(whole));
            }
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ preset: 'finance', profile: 'balanced_investor', num_interactions: MILLION, seed: 2026 }));
    });
  } catch {
    complete = false;
  }
  const totalMs = performance.now() - started;
  sampling = false;
  await sampler;
  const alone = writeRunAlone('finance', MILLION, format);
  const jsonAloneMs = format === 'json' ? alone.ms : writeRunAlone('finance', MILLION, 'json').ms;
  // The JSON body states its compute time, so its length may differ from the floor's by a few digits.
  const sameBytes = format === 'json' ? Math.abs(alone.bytes - decodedBytes) < 16 : alone.bytes === decodedBytes;
  return { format, coding, bytes, firstByteMs, totalMs, aloneMs: alone.ms, jsonAloneMs, peakRss, startRss, redisPeakBytes, redisBaseBytes, complete: complete && sameBytes };
};

const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mib = (bytes: number): string => fixed(bytes / 2 ** 20, 0);

/** The table of `npm run bench` for 1,000,000-record finance runs, one row per format, with same-run ratios. */
export const largeRunRows = async (stack: {
  readonly apiUrl: string;
  readonly key: string;
  readonly redis: RedisClient;
  readonly pids: { readonly api: number; readonly workers: readonly number[] };
}): Promise<string[]> => {
  const pids: Record<string, number> = { API: stack.pids.api };
  stack.pids.workers.forEach((pid, index) => {
    pids[`worker${stack.pids.workers.length > 1 ? ` ${index + 1}` : ''}`] = pid;
  });
  const runs: LargeRunRow[] = [];
  for (const format of ['json', 'ndjson', 'csv', 'parquet'] as const) {
    runs.push(await measureLargeRun({ ...stack, pids, format }));
  }
  runs.push(await measureLargeRun({ ...stack, pids, format: 'ndjson', coding: 'zstd' }));
  return [
    '| 1,000,000 finance | MiB | first byte ms | total ms | engine alone ms | first byte / total | total / engine alone | total / engine alone JSON | RSS MiB before → peak | Redis peak over base MiB | vs target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |',
    ...runs.map((run) => {
      const ttfb = run.firstByteMs / run.totalMs;
      const slowdown = run.totalMs / run.aloneMs;
      const rss = Object.entries(run.peakRss).map(([name, bytes]) => `${name} ${mib(run.startRss[name] ?? Number.NaN)} → ${mib(bytes)}`).join(', ');
      const ok = run.complete && ttfb <= 0.03 && slowdown <= 1.5 && Object.values(run.peakRss).every((bytes) => bytes < 300 * 2 ** 20);
      return (
        `| ${run.format}${run.coding === 'identity' ? '' : ` (${run.coding})`} | ${mib(run.bytes)} | ${fixed(run.firstByteMs, 0)} | ${fixed(run.totalMs, 0)} | ${fixed(run.aloneMs, 0)} | ${fixed(ttfb, 3)} | ` +
        `${fixed(slowdown)} | ${fixed(run.totalMs / run.jsonAloneMs)} | ${rss} | ${fixed((run.redisPeakBytes - run.redisBaseBytes) / 2 ** 20, 1)} | ` +
        `${run.complete ? '' : 'INCOMPLETE; '}${ok ? 'meets target' : 'MISSES target'} (<= 0.03, <= 1.5 x, < 300 MiB) |`
      );
    }),
  ];
};
