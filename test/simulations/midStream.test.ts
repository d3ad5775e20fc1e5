import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { raceTimeout, TIMED_OUT } from '../../shared/async/raceTimeout.ts';
import { eventually } from '../helpers/eventually.ts';
import { nextJobEvent } from '../helpers/nextJobEvent.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { spawnWorkerProcess, startTestWorker } from '../helpers/startTestWorker.ts';
import { sampleValue, scrape } from '../ops/scrape.ts';
import { postSimulation } from './postSimulation.ts';
import { streamSimulation } from './streamBody.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// docs/formats.md#large-runs-are-streamed (a worker lost mid-stream) and
// docs/fair-use.md#clients-that-leave-or-stop-reading (a client that leaves).
const MILLION = 1_000_000;

const ledgerOf = async (app: TestApp, accountId: string) => {
  await ledgerWritten(app.services);
  return app.services.pool.any(
    sql.type(z.object({ id: z.string(), status: z.string(), charged_interactions: z.number().nullable() }))`
      SELECT id, status, charged_interactions FROM simulations WHERE account_id = ${accountId} ORDER BY created_at
    `,
  );
};

const usageOf = async (app: TestApp, key: string): Promise<{ requests: number; interactions: number }> => {
  const response = await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await response.json()) as { usage: { requests: number; interactions: number } }).usage;
};

const FORMATS = [
  { name: 'NDJSON', accept: 'application/x-ndjson', needle: '\n' },
  { name: 'CSV', accept: 'text/csv', needle: '\r\n' },
  { name: 'JSON', accept: 'application/json', needle: '"interaction_id":' },
  { name: 'Parquet', accept: 'application/vnd.apache.parquet', needle: 'PAR1' },
] as const;

for (const format of FORMATS) {
  test.serial(`a worker SIGKILLed mid-stream (${format.name}): another worker resumes the run where the client's body stands; the body is byte-identical and charged once`, async (t) => {
    // Long enough for the dead worker's lock to lapse and another to take the job over, on a loaded machine.
    const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000' } });
    t.teardown(() => app.close());
    const victim = await spawnWorkerProcess({ redisPrefix: app.redisPrefix });
    t.teardown(() => victim.stop(1000));
    const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });

    let killedAt: number | undefined;
    const resumed = (async () => {
      await new Promise<void>((resolve) => victim.child.once('exit', () => resolve()));
      // The survivor starts only after the victim is dead, so it is the one that resumes the run.
      return startTestWorker({ redisPrefix: app.redisPrefix });
    })();
    const response = await streamSimulation(app.url, {
      key: caller.key,
      body: { preset: 'finance', num_interactions: MILLION, seed: 5 },
      accept: format.accept,
      needle: format.needle,
      digest: true,
      onBytes: (bytes) => {
        // Past the first chunk, so the kill lands mid-stream whatever the format's first chunk holds.
        if (killedAt === undefined && bytes > 300_000) {
          killedAt = bytes;
          victim.child.kill('SIGKILL');
        }
      },
    });
    const survivor = await resumed;
    t.teardown(() => survivor.close());
    t.truthy(killedAt, 'the worker was killed mid-stream');
    t.is(response.status, 200);
    t.is(response.error, undefined, 'the body ends whole');

    const [row] = await ledgerOf(app, caller.accountId);
    t.like(row, { status: 'completed', charged_interactions: MILLION });
    t.deepEqual(await usageOf(app, caller.key), { requests: 1, interactions: MILLION });

    // An undisturbed making of the same run (a replay: same id, same inputs) has the same bytes.
    const replay = await streamSimulation(app.url, { key: caller.key, path: `/v1/simulations/${row?.id}/records`, accept: format.accept, needle: format.needle, digest: true });
    t.is(replay.status, 200);
    t.is(replay.error, undefined);
    t.is(response.bytes, replay.bytes);
    t.is(response.digest, replay.digest);
    t.deepEqual(await usageOf(app, caller.key), { requests: 1, interactions: MILLION });
  });
}

test.serial('a worker SIGKILLed mid-stream with no worker to resume it: the body ends without its terminating chunk at the deadline, the run timed out and given back', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '8000' } });
  t.teardown(() => app.close());
  const doomed = await spawnWorkerProcess({ redisPrefix: app.redisPrefix });
  t.teardown(() => doomed.stop(1000));
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });

  const response = await streamSimulation(app.url, {
    key: caller.key,
    body: { preset: 'finance', num_interactions: MILLION, seed: 3 },
    accept: 'application/x-ndjson',
    needle: '\n',
    onFirstBytes: () => doomed.child.kill('SIGKILL'),
  });
  t.is(response.status, 200);
  t.true(response.bytes > 0, 'the first bytes were sent');
  // An HTTP client sees the cut as an error, never as a whole body.
  t.truthy(response.error, 'the body must not end cleanly');
  t.true(response.count < MILLION);
  t.like((await ledgerOf(app, caller.accountId))[0], { status: 'timed_out', charged_interactions: null });
  t.deepEqual(await usageOf(app, caller.key), { requests: 0, interactions: 0 });

  // Its one concurrency slot is free again, and the run was given back once: one more run counts one.
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const next = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key: caller.key });
  t.is(next.status, 200, next.text);
  t.deepEqual(await usageOf(app, caller.key), { requests: 1, interactions: 10 });
});

test.serial('a client that disconnects mid-stream: the run stops in its thread, is settled cancelled and charged one request and the interactions made for it, its slot freed', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000' } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  const completed = nextJobEvent(worker.worker, 'completed');
  const failures: string[] = [];
  worker.worker.on('failed', (_job, error) => failures.push(error.message));

  const client = new AbortController();
  const response = await streamSimulation(app.url, {
    key: caller.key,
    body: { preset: 'finance', num_interactions: MILLION, seed: 4 },
    accept: 'text/csv',
    needle: '\r\n',
    signal: client.signal,
    onBytes: (bytes) => {
      if (bytes > 100_000 && !client.signal.aborted) {
        client.abort();
      }
    },
  });
  const sent = response.count - 1;
  t.is(response.status, 200);
  t.truthy(response.error);

  // The worker's job is stopped long before a million records were made, and completes `cancelled`:
  // a client that left is no failure, in the queue's dashboard or its metrics.
  const outcome = await raceTimeout(completed, 60_000);
  if (outcome === TIMED_OUT) {
    t.fail('the run was not stopped');
    return;
  }
  t.is(outcome[1], 'cancelled');
  t.deepEqual(failures, []);
  t.is(sampleValue(await scrape(app.url), 'bss_queue_jobs', { state: 'failed' }), 0);
  const row = await eventually(async () => (await ledgerOf(app, caller.accountId)).find((each) => each.status === 'cancelled'));
  // At least what the client was sent, at most what it asked for.
  t.true((row.charged_interactions ?? 0) >= sent, `${row.charged_interactions} >= ${sent}`);
  t.true((row.charged_interactions ?? MILLION + 1) < MILLION);
  t.deepEqual(await usageOf(app, caller.key), { requests: 1, interactions: row.charged_interactions ?? -1 });
  // The only slot is free: the next run is admitted.
  const next = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key: caller.key });
  t.is(next.status, 200, next.text);
});

test.serial('a client that disconnects before the first bytes: the run is settled cancelled and given back whole', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000' } });
  t.teardown(() => app.close());
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });

  // No worker yet: the run waits on the queue when its client leaves.
  const client = new AbortController();
  const request = postSimulation(app, { preset: 'finance', num_interactions: 1000, seed: 4 }, { key: caller.key, signal: client.signal }).catch(() => undefined);
  await eventually(async () => ((await app.services.simulations.queue.getWaitingCount()) === 1 ? true : undefined));
  client.abort();
  await request;
  t.like(await eventually(async () => (await ledgerOf(app, caller.accountId)).find((each) => each.status === 'cancelled')), { charged_interactions: null });
  t.deepEqual(await usageOf(app, caller.key), { requests: 0, interactions: 0 });
  t.is(await app.services.simulations.queue.getWaitingCount(), 0, 'its job left the queue');
});
