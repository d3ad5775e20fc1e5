// `npm run bench:streams` (docs/benchmarks/streams.md): live streams through the real stack (API process,
// worker process with its stream jobs and piscina pool, PostgreSQL, Redis).
// 1. Concurrent streams at speed 1 (BENCH_SPEED; at speed 1 no preset's 100 subjects have an event within
//    minutes, so the figures are also taken at 3600), 100 subjects each (mobile_app), each read by an SSE reader: delivery lag
//    (receipt − due instant, due = created_at + (event_time + delay_ms − start_time) / speed), p50 and p99.
//    Target: >= 1,000 streams with p99 < 250 ms.
// 2. One stream at the highest speed (100,000) over SSE: events per second as a reader receives them, paced
//    and, once all were due, a reader that is behind. Target: >= 50,000/s.
import http from 'node:http';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { startBenchStack } from './startBenchStack.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const SPEED = Number(process.env.BENCH_SPEED ?? 1);
const FAST_INTERACTIONS = Number(process.env.BENCH_FAST_INTERACTIONS ?? 100_000);

const stack = await startBenchStack();
const pool = await createDatabasePool(stack.database.url);
await pool.query(sql.type(z.object({}))`UPDATE plans SET max_concurrent_streams = 1000000, monthly_interactions = 1000000000000, monthly_requests = 100000000 WHERE name = 'enterprise'`);
await pool.end();
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

const create = async (body: Record<string, unknown>): Promise<{ id: string; created_at: string; start_time: string; speed: number }> => {
  const response = await fetch(`${stack.apiUrl}/v1/streams`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stack.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST /v1/streams answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string; created_at: string; start_time: string; speed: number };
};

/** Reads a stream's SSE until `until` (ms since the epoch) or its end; calls `onEvent` with each data line. */
const read = (id: string, until: number, onEvent: (data: string, at: number) => void): Promise<number> =>
  new Promise((resolve, reject) => {
    let count = 0;
    const request = http.get(`${stack.apiUrl}/v1/streams/${id}/events`, { agent, headers: { Authorization: `Bearer ${stack.key}` } }, (response) => {
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const at = Date.now();
        buffer += chunk;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const message = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
          const data = message.startsWith('id: ') ? message.slice(message.indexOf('\ndata: ') + 7) : undefined;
          if (data !== undefined) {
            count += 1;
            onEvent(data, at);
          }
        }
        if (at >= until) request.destroy();
      });
      response.on('end', () => resolve(count));
      response.on('close', () => resolve(count));
    });
    request.on('error', (error) => (request.destroyed ? resolve(count) : reject(error)));
  });

const percentile = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

try {
  // 1. Many streams at speed 1.
  const created: Awaited<ReturnType<typeof create>>[] = [];
  for (let i = 0; i < STREAMS; i += 50) {
    created.push(...(await Promise.all(Array.from({ length: Math.min(50, STREAMS - i) }, (_, j) => create({ preset: 'mobile_app', num_interactions: 100_000, population: 100, seed: i + j, speed: SPEED })))));
  }
  const lags: number[] = [];
  const until = Date.now() + SECONDS * 1000;
  const counts = await Promise.all(
    created.map((stream) => {
      const createdMs = Date.parse(stream.created_at);
      const startMs = Date.parse(stream.start_time);
      return read(stream.id, until, (data, at) => {
        const envelope = JSON.parse(data) as { record: { event_time: string }; delay_ms: number };
        const due = createdMs + (Date.parse(envelope.record.event_time) + envelope.delay_ms - startMs) / stream.speed;
        lags.push(at - due);
      });
    }),
  );
  const sorted = Float64Array.from(lags).sort();
  const events = counts.reduce((a, b) => a + b, 0);
  console.log(`| ${STREAMS} streams at speed ${SPEED}, 100 subjects each, ${SECONDS} s | ${events} events (${(events / SECONDS).toFixed(0)}/s) | lag p50 ${percentile(sorted, 50).toFixed(1)} ms | p99 ${percentile(sorted, 99).toFixed(1)} ms | max ${percentile(sorted, 100).toFixed(1)} ms |`);
  for (const stream of created) {
    await fetch(`${stack.apiUrl}/v1/streams/${stream.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${stack.key}` } });
  }

  // 2. One stream at the highest speed.
  const fast = await create({ preset: 'mobile_app', num_interactions: FAST_INTERACTIONS, population: 10_000, seed: 1, speed: 100_000, start_time: '2026-01-01T00:00:00.000Z' });
  let first = 0;
  let last = 0;
  const paced = await read(fast.id, Number.POSITIVE_INFINITY, (_data, at) => {
    if (first === 0) first = at;
    last = at;
  });
  console.log(`| one stream, speed 100000, paced | ${paced} events in ${((last - first) / 1000).toFixed(2)} s | ${(paced / ((last - first) / 1000)).toFixed(0)} events/s |`);
  const started = Date.now();
  const behind = await read(fast.id, Number.POSITIVE_INFINITY, () => {});
  const seconds = (Date.now() - started) / 1000;
  console.log(`| one stream, all due, a reader behind | ${behind} events in ${seconds.toFixed(2)} s | ${(behind / seconds).toFixed(0)} events/s |`);
} finally {
  agent.destroy();
  await stack.close();
}
