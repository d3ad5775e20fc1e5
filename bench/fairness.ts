// `npm run bench:fairness`: another tenant's latency for small runs while one account loads the service in
// the ways a hostile customer can, each phase beside a quiet phase measured just before it in the same run.
// The real stack with the default processes and threads (1 worker process, cores − 1 threads). The other
// tenant (a plan of its own with no limit in the way) starts BENCH_FAIRNESS_RATE runs of BENCH_FAIRNESS_N records a second for
// BENCH_FAIRNESS_SECONDS (open loop) and every answer is timed to its last byte, whatever its status.
// The hostile account holds a plan of its own whose concurrency is BENCH_FAIRNESS_STREAMS:
//   - stalled streams: that many streamed 1,000,000-record NDJSON runs whose client reads the first bytes
//     and stops reading, a slot the service frees taken again at once (bench/fairnessClients.ts);
//   - replay flood: idempotent replays of one 1,000-record run on twice that many connections;
//   - slow readers: that many streamed 1,000,000-record NDJSON runs read at 1 KB/s, 100 KB/s and 1 MB/s in
//     turn (test/helpers/openSlowReader.ts); each until its run is settled, whose ledger row says how it
//     ended and what it was charged (docs/fair-use.md: a reader is never cut while it reads, and a run its
//     reader holds to the deadline is charged for what was sent).
// The target (docs/fair-use.md#clients-that-leave-or-stop-reading): the other tenant's 1,000-interaction run
// answers within 2 s while one account holds its whole plan concurrency in streams whose clients do not read.
import os from 'node:os';
import { Queue } from 'bullmq';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { SIMULATION_QUEUE } from '../shared/jobs/queueName.ts';
import { queuePrefix } from '../shared/redis/queuePrefix.ts';
import { buildAccount, buildApiKey } from '../test/helpers/factories.ts';
import { openSlowReader } from '../test/helpers/openSlowReader.ts';
import { type Answer, holdStalledStreams, pacedRequests, type Target, timedRequest } from './fairnessClients.ts';
import { runLoad } from './loadTest.ts';
import { startBenchStack } from './startBenchStack.ts';

const SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_FAIRNESS_RATE ?? 10);
const VICTIM_N = Number(process.env.BENCH_FAIRNESS_N ?? 100);
const STREAMS = Number(process.env.BENCH_FAIRNESS_STREAMS ?? 5);
const STREAM_N = 1_000_000;
const REPLAY_N = 1000;
const BOUND_MS = 2000;

interface Figures {
  readonly answers: number;
  readonly nonOk: number;
  readonly statuses: string;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

const figures = (answers: readonly Answer[]): Figures => {
  const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const at = (fraction: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
  const byStatus = new Map<number, number>();
  for (const answer of answers) {
    byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
  }
  const nonOk = answers.filter((answer) => answer.status !== 200).length;
  const statuses = [...byStatus].sort(([a], [b]) => a - b).map(([status, count]) => `${status === 0 ? 'no answer' : status} × ${count}`).join(', ');
  return { answers: answers.length, nonOk, statuses, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
};

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(value < 100 ? 1 : 0) : 'n/a');

const stack = await startBenchStack();
const queue = new Queue(SIMULATION_QUEUE, { connection: stack.redis, prefix: queuePrefix(stack.prefix, { kind: stack.redisKind }) });
try {
  // The hostile account: a plan whose whole concurrency is STREAMS, large runs allowed, no rate or quota in the way.
  const pool = await createDatabasePool(stack.database.url);
  await pool.query(sql.type(z.object({}))`
    INSERT INTO plans (name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request, max_concurrent_simulations, max_active_api_keys)
    VALUES ('bench_hostile', 100000000, 100000000, 1000000000000000, ${STREAM_N}, ${STREAMS}, 1)`);
  const hostile = (await buildApiKey(pool, (await buildAccount(pool, { plan: 'bench_hostile' })).id)).key;
  // The other tenant: nothing of its own plan may refuse it, even when every run it started waits 30 s.
  await pool.query(sql.type(z.object({}))`
    INSERT INTO plans (name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request, max_concurrent_simulations, max_active_api_keys)
    VALUES ('bench_tenant', 100000000, 100000000, 1000000000000000, ${STREAM_N}, 100000, 1)`);
  const tenant = (await buildApiKey(pool, (await buildAccount(pool, { plan: 'bench_tenant' })).id)).key;
  // How each hostile run was settled: status and charge, by simulation id.
  const settlement = async (simulationId: string): Promise<{ status: string; charged: number | null } | undefined> =>
    (await pool.maybeOne(sql.type(z.object({ status: z.string(), charged: z.number().nullable() }))`
      SELECT status, charged_interactions AS charged FROM simulations WHERE id = ${simulationId}`)) ?? undefined;

  const url = `${stack.apiUrl}/v1/simulations`;
  const victim: Target = { url, key: tenant, body: { preset: 'finance', num_interactions: VICTIM_N, seed: 7 } };
  const victimPhase = (): Promise<Answer[]> => pacedRequests(victim, SECONDS, RATE);
  // Nothing of a phase may linger into the next: wait until the queue holds no job (bounded).
  const quiet = async (): Promise<void> => {
    const until = Date.now() + 120_000;
    for (;;) {
      const counts = await queue.getJobCounts('active', 'waiting', 'prioritized', 'delayed');
      if (Object.values(counts).every((count) => count === 0) || Date.now() > until) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  // Warm the paths (JIT, pools, connections, the principal cache) for both accounts.
  await pacedRequests(victim, 2, RATE);
  await timedRequest({ url, key: hostile, body: { preset: 'finance', num_interactions: REPLAY_N, seed: 1 } });

  const quietBeforeStreams = figures(await victimPhase());
  const streams = holdStalledStreams({ url, key: hostile, body: { preset: 'finance', num_interactions: STREAM_N, seed: 3 }, headers: { accept: 'application/x-ndjson' } }, STREAMS);
  const streaming = await streams.firstBytes(20_000);
  const stalledStarted = performance.now();
  const stalled = figures(await victimPhase());
  const stalledSeconds = (performance.now() - stalledStarted) / 1000;
  const streamCounts = streams.counts();
  streams.stop();
  await quiet();

  // Slow readers: each read at its pace until its run is settled (the deadline at the latest), then let go.
  const RATES = [1024, 100 * 1024, 1024 * 1024];
  const quietBeforeReaders = figures(await victimPhase());
  const readersStarted = performance.now();
  const readers = Array.from({ length: STREAMS }, (_, index) => {
    const rate = RATES[index % RATES.length]!;
    const reader = openSlowReader(
      stack.apiUrl,
      {
        path: '/v1/simulations',
        headers: { Authorization: `Bearer ${hostile}`, 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
        body: JSON.stringify({ preset: 'finance', num_interactions: STREAM_N, seed: 40 + index }),
      },
      rate,
    );
    return { rate, reader };
  });
  const [readersVictim, readerOutcomes] = await Promise.all([
    victimPhase().then(figures),
    Promise.all(
      readers.map(async ({ rate, reader }) => {
        const until = Date.now() + 120_000;
        for (;;) {
          const id = /\r\nsimulation-id: *([^\r]+)/i.exec(reader.head() ?? '')?.[1];
          const settled = id === undefined ? undefined : await settlement(id);
          if (settled !== undefined || Date.now() > until) {
            const outcome = { rate, seconds: (performance.now() - readersStarted) / 1000, received: reader.received(), settled };
            reader.close();
            return outcome;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }),
    ),
  ]);
  await quiet();

  const quietBeforeReplays = figures(await victimPhase());
  const replayKey = `bench-fairness-${process.pid}`;
  const replayBody = { preset: 'finance', num_interactions: REPLAY_N, seed: 5 };
  const first = await timedRequest({ url, key: hostile, body: replayBody, headers: { 'idempotency-key': replayKey } });
  const [flooded, flood] = await Promise.all([
    victimPhase().then(figures),
    runLoad({ url, method: 'POST', body: replayBody, headers: { authorization: `Bearer ${hostile}`, 'idempotency-key': replayKey }, connections: 2 * STREAMS, duration: SECONDS }),
  ]);
  await quiet();
  await pool.end();

  const rows = [
    '| phase | other tenant runs | non-2xx | p50 ms | p99 ms | max ms | p50 / quiet | p99 / quiet | hostile load |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const row = (name: string, measured: Figures, base: Figures | undefined, load: string): void => {
    const ratio = (value: number, against: number | undefined): string => (against === undefined ? '1' : (value / against).toFixed(1));
    rows.push(
      `| ${name} | ${measured.answers} | ${measured.nonOk}${measured.nonOk > 0 ? ` (${measured.statuses})` : ''} | ${ms(measured.p50)} | ${ms(measured.p99)} | ${ms(measured.max)} | ${ratio(measured.p50, base?.p50)} | ${ratio(measured.p99, base?.p99)} | ${load} |`,
    );
  };
  const refused = [...streamCounts.refused].map(([status, count]) => `${status === 0 ? 'no answer' : status} × ${count}`).join(', ') || 'none';
  row('quiet', quietBeforeStreams, undefined, 'none');
  row(
    'stalled streams',
    stalled,
    quietBeforeStreams,
    `${STREAMS} held NDJSON streams of ${STREAM_N.toLocaleString('en')} records (${streaming ? 'first records in' : 'NO first records within 20 s'}); over ${stalledSeconds.toFixed(0)} s, streams begun: ${streamCounts.held}; other attempts: ${refused}`,
  );
  row('quiet', quietBeforeReplays, undefined, 'none');
  row(
    'replay flood',
    flooded,
    quietBeforeReplays,
    `idempotent replays of one ${REPLAY_N}-record run (first answer ${first.status}) on ${2 * STREAMS} connections: ${flood.rps.toFixed(0)} answered 200/s, ${flood.failures} refused or failed`,
  );
  row('quiet', quietBeforeReaders, undefined, 'none');
  row('slow readers', readersVictim, quietBeforeReaders, `${STREAMS} NDJSON streams of ${STREAM_N.toLocaleString('en')} records read at ${RATES.map((rate) => `${rate / 1024} KB/s`).join(', ')} in turn`);
  const readerRows = [
    '| reader pace | settled after s | bytes read by then | run settled | interactions charged |',
    '| ---: | ---: | ---: | --- | ---: |',
    ...readerOutcomes.map(
      (outcome) =>
        `| ${outcome.rate / 1024} KB/s | ${outcome.seconds.toFixed(1)} | ${outcome.received.toLocaleString('en')} | ${outcome.settled?.status ?? 'not within 120 s'} | ${outcome.settled?.charged?.toLocaleString('en') ?? '0'} |`,
    ),
  ];
  const verdict = (measured: Figures): string => (measured.nonOk === 0 && measured.p99 <= BOUND_MS ? 'within' : 'NOT within');
  process.stdout.write(
    `\n${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}; ` +
      `${stack.workerProcesses} worker process(es) x ${stack.workerThreads} thread(s); other tenant: ${RATE} runs/s of ${VICTIM_N} records for ${SECONDS} s per phase, ` +
      `each answer timed to its last byte whatever its status\n\n${rows.join('\n')}\n\nSlow readers (deadline SIMULATION_TIMEOUT_MS, stall timeout STREAM_STALL_TIMEOUT_MS as configured):\n\n${readerRows.join('\n')}\n\n` +
      `Other tenant's runs under stalled streams: ${verdict(stalled)} ${BOUND_MS} ms at p99 with every answer 200; under the replay flood: ${verdict(flooded)}.\n`,
  );
} finally {
  await queue.close();
  await stack.close();
}
