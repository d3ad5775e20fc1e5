import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { raceTimeout, TIMED_OUT } from '../../shared/async/raceTimeout.ts';
import { eventually } from '../helpers/eventually.ts';
import { nextJobEvent } from '../helpers/nextJobEvent.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { spawnWorkerProcess, startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';
import { streamSimulation } from './streamBody.ts';

const MILLION = 1_000_000;

const ledgerOf = async (app: TestApp, accountId: string) =>
  app.services.pool.any(sql.type(z.object({ status: z.string() }))`SELECT status FROM simulations WHERE account_id = ${accountId} ORDER BY created_at`);

const usageOf = async (app: TestApp, key: string): Promise<{ requests: number; interactions: number }> => {
  const response = await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await response.json()) as { usage: { requests: number; interactions: number } }).usage;
};

test('a worker SIGKILLed mid-stream: the body ends without its terminating chunk, the run is settled timed_out and given back, its slot freed', async (t) => {
  // The deadline ends the run the dead worker left; long enough for the first bytes on a loaded machine.
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

  // Settled before the body was cut: timed out (no worker took the job again), counted nowhere.
  t.deepEqual(await ledgerOf(app, caller.accountId), [{ status: 'timed_out' }]);
  t.deepEqual(await usageOf(app, caller.key), { requests: 0, interactions: 0 });

  // Its one concurrency slot is free again, and the run was given back once: one more run counts one.
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const next = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key: caller.key });
  t.is(next.status, 200, next.text);
  t.deepEqual(await usageOf(app, caller.key), { requests: 1, interactions: 10 });
});

test('a client that disconnects mid-stream stops the run in its thread and frees its slot', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000' } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  const failed = nextJobEvent(worker.worker, 'failed');

  const client = new AbortController();
  const response = await streamSimulation(app.url, {
    key: caller.key,
    body: { preset: 'finance', num_interactions: MILLION, seed: 4 },
    accept: 'text/csv',
    needle: '\r\n',
    signal: client.signal,
    onFirstBytes: () => client.abort(),
  });
  t.is(response.status, 200);
  t.truthy(response.error);

  // The worker's job fails because it was aborted, long before a million records were made.
  const outcome = await raceTimeout(failed, 60_000);
  if (outcome === TIMED_OUT) {
    t.fail('the run was not aborted');
    return;
  }
  t.is(outcome[1].message, 'aborted by its client');
  // The API process settles on the disconnect itself; that may land just after the worker's failure.
  await eventually(async () => ((await ledgerOf(app, caller.accountId))[0]?.status === 'failed' ? true : undefined), 10_000, 50);
  t.deepEqual(await usageOf(app, caller.key), { requests: 0, interactions: 0 });
  // The only slot is free: the next run is admitted.
  const next = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key: caller.key });
  t.is(next.status, 200, next.text);
});
