import { createHash } from 'node:crypto';
import test from 'ava';
import type { Job } from 'bullmq';
import { sql } from 'slonik';
import { z } from 'zod';
import { writeRecordsJson } from '../../shared/engine/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { spawnWorkerProcess, type WorkerProcess } from '../helpers/startTestWorker.ts';
import { postSimulation, rawData } from './postSimulation.ts';

// Real worker processes (`node worker/main.ts`), one thread each, so the machine is not oversubscribed.
// A run of this size takes the better part of a second: long enough to act on a job mid-run.
const SLOW_RUN = { preset: 'finance', num_interactions: 400_000, seed: 3 } as const;

const sha256 = (value: string | Uint8Array): string => createHash('sha256').update(value).digest('hex');
const expectedDigest = sha256(writeRecordsJson({ preset: 'finance', profile: 'balanced_investor', seed: 3, numInteractions: 400_000 }));

const startApp = async (t: { teardown: (fn: () => Promise<void>) => void }): Promise<{ app: TestApp; key: string; accountId: string }> => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  // A plan of its own: these runs are larger than any real plan's per-request maximum.
  const { key, accountId } = await buildCaller(app.services.pool, {});
  return { app, key, accountId };
};

const spawnWorkers = async (
  t: { teardown: (fn: () => Promise<void>) => void },
  app: TestApp,
  count: number,
): Promise<WorkerProcess[]> => {
  const workers = await Promise.all(Array.from({ length: count }, () => spawnWorkerProcess({ redisPrefix: app.redisPrefix })));
  t.teardown(async () => {
    await Promise.all(workers.map((worker) => worker.stop(2000)));
  });
  return workers;
};

/** The active job and the pid of the worker process running it (worker names end in `:<pid>`). */
const activeJob = (app: TestApp): Promise<{ job: Job; pid: number }> =>
  eventually(
    async () => {
      const [job] = await app.services.simulations.queue.getActive();
      return job?.processedBy === undefined ? undefined : { job, pid: Number(job.processedBy.split(':').at(-1)) };
    },
    10_000,
    5,
  );

test.serial('the same inputs through two different worker processes give byte-identical data', async (t) => {
  const { app, key } = await startApp(t);
  const body = { preset: 'education', profile: 'fast_accurate', num_interactions: 2000, seed: 12_345 };

  const [first] = await spawnWorkers(t, app, 1);
  const fromFirst = await postSimulation(app, body, { key });
  t.is(fromFirst.status, 200, fromFirst.text.slice(0, 300));
  t.is(await first?.stop(), 0);

  const [second] = await spawnWorkers(t, app, 1);
  t.not(second?.pid, first?.pid);
  const fromSecond = await postSimulation(app, body, { key });
  t.is(fromSecond.status, 200, fromSecond.text.slice(0, 300));

  t.not(fromSecond.body.simulation_id, fromFirst.body.simulation_id);
  t.is(rawData(fromSecond.text), rawData(fromFirst.text));
  t.is(
    rawData(fromFirst.text),
    writeRecordsJson({ preset: 'education', profile: 'fast_accurate', seed: 12_345, numInteractions: 2000 }).toString('utf8'),
  );
});

test.serial('a worker killed with SIGKILL mid-job: another worker takes the stalled job and the request completes whole by the deadline, its answer begun or not', async (t) => {
  const { app, key, accountId } = await startApp(t);
  const workers = await spawnWorkers(t, app, 2);

  const pending = postSimulation(app, SLOW_RUN, { key });
  const { pid } = await activeJob(app);
  const victim = workers.find((worker) => worker.pid === pid);
  if (victim === undefined) {
    t.fail(`job ran on an unknown process ${pid}`);
    return;
  }
  victim.child.kill('SIGKILL');
  await victim.exited;
  t.is(victim.child.signalCode, 'SIGKILL');

  const response = await pending;
  const [row] = await eventually(async () => {
    const rows = await app.services.pool.any(sql.type(z.object({ status: z.string() }))`SELECT status FROM simulations WHERE account_id = ${accountId}`);
    return rows.length === 1 && rows[0]?.status !== 'queued' ? rows : undefined;
  }, 15_000, 20);
  // By the deadline: a run still going at SIMULATION_TIMEOUT_MS is answered 504 simulation_timeout, so 200
  // says it. Had its first bytes left before the kill, the other worker resumed it where they stood.
  t.is(response.status, 200, response.text.slice(0, 300));
  t.is(sha256(rawData(response.text)), expectedDigest);
  t.like(row, { status: 'completed' });
});

test.serial('SIGTERM lets a worker finish its active job before it exits', async (t) => {
  const { app, key } = await startApp(t);
  const [worker] = await spawnWorkers(t, app, 1);
  if (worker === undefined) {
    t.fail('no worker');
    return;
  }

  const pending = postSimulation(app, SLOW_RUN, { key });
  const { pid } = await activeJob(app);
  t.is(pid, worker.pid);
  worker.child.kill('SIGTERM');

  const response = await pending;
  t.is(response.status, 200, response.text.slice(0, 300));
  t.is(sha256(rawData(response.text)), expectedDigest);
  t.is(await worker.exited, 0);
});
