import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { spawnWorkerProcess, type WorkerProcess } from '../helpers/startTestWorker.ts';
import { createRedisPrefix, deleteRedisPrefix, testRedisEnv } from '../helpers/testRedis.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const prefix = createRedisPrefix();
let worker: WorkerProcess | undefined;

test.after.always(async () => {
  await worker?.stop(10_000);
  await deleteRedisPrefix(prefix);
});

/** The compose file's worker health check, as Docker runs it: `node scripts/checkWorkerHealth.ts`. */
const check = (env: Record<string, string>): Promise<{ code: number; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'scripts/checkWorkerHealth.ts')],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...testRedisEnv(), ...env }, timeout: 30_000 },
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr }),
    );
  });

test.serial('the worker health check fails with one line while no worker of this host has a heartbeat', async (t) => {
  const result = await check({ REDIS_PREFIX: prefix });
  t.is(result.code, 1);
  t.regex(result.stderr, /^unhealthy: no worker on \S+ has written its heartbeat under prefix test:[0-9a-f]+\n$/);
});

test.serial('the worker health check passes once a worker process runs and writes its heartbeat, and fails again once it stopped', async (t) => {
  worker = await spawnWorkerProcess({ redisPrefix: prefix });
  const healthy = await check({ REDIS_PREFIX: prefix });
  t.is(healthy.code, 0, healthy.stderr);
  t.is(healthy.stderr, '');
  t.is(await worker.stop(10_000), 0);
  // A stopping worker removes its heartbeat.
  t.is((await check({ REDIS_PREFIX: prefix })).code, 1);
});

test.serial('the worker health check fails when Redis is unreachable', async (t) => {
  const result = await check({ REDIS_PREFIX: prefix, REDIS_URL: 'redis://127.0.0.1:9', REDIS_CLUSTER_NODES: '' });
  t.is(result.code, 1);
  t.regex(result.stderr, /^unhealthy: Redis is not reachable at redis:\/\/127\.0\.0\.1:9\n$/);
});
