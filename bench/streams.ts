// `npm run bench:streams` (docs/benchmarks/streams.md): live streams through the real stack (API process,
// worker process with its stream jobs and piscina pool, PostgreSQL, Redis), two parts (BENCH_PART=many,
// fast or both):
// 1. many: BENCH_STREAMS streams (1,000) of mobile_app, 100 subjects each, at BENCH_SPEED (1), each read by
//    an SSE reader that connects as soon as its stream is created, for BENCH_SECONDS (600). start_time is
//    BENCH_START (a Monday 20:00 UTC, the preset's evening peak: the first sessions open about 3 minutes
//    in; earlier in the day, or at midnight, nothing is due for most of an hour at speed 1). Delivery lag
//    per event = receipt − due, due = created_at + (event_time + delay_ms − start_time) / speed.
//    Target: ≥ 1,000 streams at speed 1 with p99 < 250 ms.
// 2. fast: one stream at the highest speed (100,000): mobile_app, 10,000 subjects, BENCH_FAST_INTERACTIONS
//    records from the same evening start (its events come due at up to ~70,000/s), read as they come due
//    (with each event's lag) and, once all were due, by a reader that is behind (BENCH_BEHIND_READS times).
//    Target: ≥ 50,000 events/s.
// BENCH_PROFILE_DIR=<dir> runs the API and worker under `node --cpu-prof` and prints their top frames.
// The readers share the machine's cores with the stack, so they find each event's due instant with two
// string searches, never a JSON parse.
import { mkdirSync, readdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { databaseBackends, fixedPid, startCpuWindow } from './processCpu.ts';
import { startBenchStack } from './startBenchStack.ts';
import { summarizeProfile } from './summarizeProfile.ts';

const PART = process.env.BENCH_PART ?? 'both';
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 600);
const SPEED = Number(process.env.BENCH_SPEED ?? 1);
const START = process.env.BENCH_START ?? '2026-01-05T20:00:00.000Z';
const FAST_INTERACTIONS = Number(process.env.BENCH_FAST_INTERACTIONS ?? 300_000);
const BEHIND_READS = Number(process.env.BENCH_BEHIND_READS ?? 1);
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

if (PROFILE_DIR !== undefined) mkdirSync(PROFILE_DIR, { recursive: true });
const stack = await startBenchStack(PROFILE_DIR === undefined ? {} : { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] });
const pool = await createDatabasePool(stack.database.url);
await pool.query(sql.type(z.object({}))`UPDATE plans SET max_concurrent_streams = 1000000, monthly_interactions = 1000000000000, monthly_requests = 100000000 WHERE name = 'enterprise'`);
await pool.end();
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

interface Created {
  readonly id: string;
  readonly created_at: string;
  readonly start_time: string;
  readonly speed: number;
}

const create = async (body: Record<string, unknown>): Promise<Created> => {
  const response = await fetch(`${stack.apiUrl}/v1/streams`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stack.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST /v1/streams answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Created;
};

/**
 * Reads a stream's SSE until `until` (ms since the epoch), its end, or `stop()`; calls `onEvent` with each
 * event's `data:` text and the instant its chunk arrived. Resolves with the number of events.
 */
const read = (id: string, onEvent: (data: string, at: number) => void, until = Number.POSITIVE_INFINITY): { done: Promise<number>; stop: () => void; connectedAt: () => number } => {
  let request: http.ClientRequest | undefined;
  let connectedAt = Number.POSITIVE_INFINITY;
  const done = new Promise<number>((resolve, reject) => {
    let count = 0;
    request = http.get(`${stack.apiUrl}/v1/streams/${id}/events`, { agent, headers: { Authorization: `Bearer ${stack.key}` } }, (response) => {
      connectedAt = Date.now();
      let buffer = '';
      // Presets' records are ASCII: latin1 is the cheapest decoding.
      response.setEncoding('latin1');
      response.on('data', (chunk: string) => {
        const at = Date.now();
        buffer = buffer === '' ? chunk : buffer + chunk;
        let from = 0;
        let cut = buffer.indexOf('\n\n', from);
        while (cut >= 0) {
          if (buffer.startsWith('id: ', from)) {
            count += 1;
            onEvent(buffer.slice(buffer.indexOf('\ndata: ', from) + 7, cut), at);
          }
          from = cut + 2;
          cut = buffer.indexOf('\n\n', from);
        }
        buffer = buffer.slice(from);
        if (at >= until) request?.destroy();
      });
      response.on('end', () => resolve(count));
      response.on('close', () => resolve(count));
    });
    request.on('error', (error) => (request?.destroyed === true ? resolve(count) : reject(error)));
  });
  return { done, stop: () => request?.destroy(), connectedAt: () => connectedAt };
};

/** Counts a stream's events with no decoding at all: the `\nid: ` starting each message. */
const countEvents = (id: string, onChunk: (events: number, at: number) => void): Promise<number> =>
  new Promise((resolve, reject) => {
    let total = 0;
    const request = http.get(`${stack.apiUrl}/v1/streams/${id}/events`, { agent, headers: { Authorization: `Bearer ${stack.key}` } }, (response) => {
      // `\n\nid: ` across a chunk boundary: keep the last 5 bytes.
      let carry = Buffer.alloc(0);
      response.on('data', (chunk: Buffer) => {
        const at = Date.now();
        const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
        let events = 0;
        for (let i = bytes.indexOf('\nid: '); i >= 0; i = bytes.indexOf('\nid: ', i + 5)) events += 1;
        carry = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 4)));
        total += events;
        if (events > 0) onChunk(events, at);
      });
      response.on('end', () => resolve(total));
      response.on('close', () => resolve(total));
    });
    request.on('error', reject);
  });

const EVENT_TIME = '"event_time":"';
const DELAY = '"delay_ms":';
/** An envelope's delivery instant (event_time + delay_ms), found by two searches in its JSON text. */
const deliveryMsOf = (data: string): number => {
  const at = data.indexOf(EVENT_TIME) + EVENT_TIME.length;
  const delay = data.lastIndexOf(DELAY) + DELAY.length;
  return Date.parse(data.slice(at, data.indexOf('"', at))) + Number(data.slice(delay, data.indexOf(',', delay)));
};

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);
/** What the profiles are summarised over: the fast stream's reads (its creation to the last read), not the processes' start. */
const profileWindow = { fromUs: 0, toUs: Number.POSITIVE_INFINITY };
const percentile = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const load = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' ');
const cpuSources = [fixedPid('api', stack.pids.api), ...stack.pids.workers.map((pid, i) => fixedPid(`worker${i + 1}`, pid))];
// The stack's PostgreSQL backends too, for the many streams: their clocks and readers' state checks are statements.
const backends = databaseBackends('postgres', stack.database.adminUrl, stack.database.name);
const cpuLine = (used: Map<string, number>, seconds: number): string =>
  [...used].map(([name, ms]) => `${name} ${((ms / (seconds * 1000)) * 100).toFixed(0)}% of a core`).join(', ');
// On a shared machine a process gets only its share of the cores: CPU time per event is the steadier figure.
const perEvent = (used: Map<string, number>, events: number): string =>
  [...used].map(([name, ms]) => `${name} ${((ms * 1000) / events).toFixed(2)} µs/event`).join(', ');

try {
  if (PART === 'many' || PART === 'both') {
    const loadBefore = load();
    const benchCpu = process.cpuUsage();
    const began = Date.now();
    const cpu = await startCpuWindow([...cpuSources, backends]);
    const lags: number[] = [];
    const readers: { done: Promise<number>; stop: () => void }[] = [];
    const ids: string[] = [];
    let creationEnded = 0;
    // Each reader connects as soon as its stream is created, so it is there before its events fall due.
    for (let i = 0; i < STREAMS; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, STREAMS - i) }, (_, j) => create({ preset: 'mobile_app', num_interactions: 100_000, population: 100, seed: i + j + 1, speed: SPEED, start_time: START })),
      );
      for (const stream of batch) {
        ids.push(stream.id);
        const createdMs = Date.parse(stream.created_at);
        const startMs = Date.parse(stream.start_time);
        readers.push(read(stream.id, (data, at) => lags.push(at - (createdMs + (deliveryMsOf(data) - startMs) / stream.speed))));
      }
      creationEnded = Date.now();
    }
    const createSeconds = (creationEnded - began) / 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, began + SECONDS * 1000 - Date.now())));
    const loadAfter = load();
    const used = await cpu.stop();
    const seconds = (Date.now() - began) / 1000;
    for (const reader of readers) reader.stop();
    const counts = await Promise.all(readers.map((reader) => reader.done));
    const bench = process.cpuUsage(benchCpu);
    const sorted = Float64Array.from(lags).sort();
    const events = counts.reduce((a, b) => a + b, 0);
    console.log(
      `| ${STREAMS} streams at speed ${SPEED}, 100 subjects, ${seconds.toFixed(0)} s (created in ${createSeconds.toFixed(1)} s) | ${events} events (${(events / seconds).toFixed(1)}/s) ` +
        `| lag p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${percentile(sorted, 100).toFixed(1)} ms ` +
        `| ${cpuLine(used, seconds)}, bench ${(((bench.user + bench.system) / 1000 / (seconds * 1000)) * 100).toFixed(0)}% | load ${loadBefore} → ${loadAfter} |`,
    );
    // Cancelled, so their worker jobs do not weigh on what follows.
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(ids.slice(i, i + 50).map((id) => fetch(`${stack.apiUrl}/v1/streams/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${stack.key}` } })));
    }
  }

  if (PART === 'fast' || PART === 'both') {
    const loadBefore = load();
    profileWindow.fromUs = monotonicUs();
    const fast = await create({ preset: 'mobile_app', num_interactions: FAST_INTERACTIONS, population: 10_000, seed: 1, speed: 100_000, start_time: START });
    const createdMs = Date.parse(fast.created_at);
    const startMs = Date.parse(fast.start_time);
    const cpu = await startCpuWindow(cpuSources);
    let first = 0;
    let last = 0;
    let firstDue = 0;
    let lastDue = 0;
    const lags: number[] = [];
    let dueBeforeConnected = 0;
    // The stream's own pace bounds a paced reader: its events come due over [firstDue, lastDue]. Its first
    // events fall due within milliseconds of creation, before the reader is connected: their lag is the
    // connection's, counted apart.
    const paced = read(fast.id, (data, at) => {
      const due = createdMs + (deliveryMsOf(data) - startMs) / fast.speed;
      if (first === 0) {
        first = at;
        firstDue = due;
      }
      last = at;
      lastDue = due;
      if (due < paced.connectedAt()) dueBeforeConnected += 1;
      else lags.push(at - due);
    });
    const count = await paced.done;
    const pacedUsed = await cpu.stop();
    const sorted = Float64Array.from(lags).sort();
    const seconds = (last - first) / 1000;
    console.log(
      `| one stream, speed 100000, ${FAST_INTERACTIONS} records, read as due | ${count} events in ${seconds.toFixed(2)} s: ${(count / seconds).toFixed(0)}/s ` +
        `(due over ${((lastDue - firstDue) / 1000).toFixed(2)} s: ${(count / ((lastDue - firstDue) / 1000)).toFixed(0)}/s) ` +
        `| lag p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${percentile(sorted, 100).toFixed(0)} ms ` +
        `(${dueBeforeConnected} events due before the reader was connected, ${((paced.connectedAt() - createdMs) / 1000).toFixed(2)} s after creation, left out) ` +
        `| ${cpuLine(pacedUsed, seconds)}; ${perEvent(pacedUsed, count)} | load ${loadBefore} |`,
    );
    // A reader that is behind: everything is due, so this is how fast the API can make and send them.
    for (let i = 0; i < BEHIND_READS; i++) {
      const behindCpu = await startCpuWindow(cpuSources);
      const started = Date.now();
      const behind = await countEvents(fast.id, () => {});
      const took = (Date.now() - started) / 1000;
      const behindUsed = await behindCpu.stop();
      profileWindow.toUs = monotonicUs();
      console.log(`| one stream, all due, a reader behind | ${behind} events in ${took.toFixed(2)} s: ${(behind / took).toFixed(0)}/s | ${cpuLine(behindUsed, took)}; ${perEvent(behindUsed, behind)} | load ${load()} |`);
    }
  }
} finally {
  agent.destroy();
  await backends.close();
  await stack.close();
}

if (PROFILE_DIR !== undefined) {
  const pidName = new Map<number, string>([[stack.pids.api, 'API'], ...stack.pids.workers.map((pid, index): [number, string] => [pid, `worker ${index + 1}`])]);
  for (const file of readdirSync(PROFILE_DIR).filter((name) => name.endsWith('.cpuprofile'))) {
    // Node names the file CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile; thread 0 is the main thread.
    const [, , , pid, thread] = file.split('.');
    const name = pidName.get(Number(pid));
    if (name === undefined) continue;
    const { busyMs, idleMs, frames } = summarizeProfile(path.join(PROFILE_DIR, file), 15, profileWindow);
    console.log(`\n### ${name}, thread ${thread} (${file}), the fast stream's reads: busy ${busyMs.toFixed(0)} ms, idle ${idleMs.toFixed(0)} ms\n`);
    console.log('| self ms | share | frame |\n| ---: | ---: | --- |');
    for (const frame of frames) console.log(`| ${frame.selfMs.toFixed(0)} | ${(frame.share * 100).toFixed(1)}% | ${frame.frame.replaceAll('|', '\\|')} |`);
  }
}
