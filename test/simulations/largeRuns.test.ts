import { readFile } from 'node:fs/promises';
import test from 'ava';
import { parquetMetadata } from 'hyparquet';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { ServiceProcess } from '../helpers/spawnService.ts';
import { spawnWorkerProcess, type WorkerProcess } from '../helpers/startTestWorker.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { createRedisPrefix, deleteRedisPrefix } from '../helpers/testRedis.ts';
import { spawnApiProcess } from '../ops/spawnApiProcess.ts';
import { streamSimulation } from './streamBody.ts';

// 1,000,000-record runs through real processes, as production runs them: one API, one worker.
let database: TestDatabase;
let redisPrefix: string;
let api: ServiceProcess;
let worker: WorkerProcess;
let key: string;

const MILLION = 1_000_000;
/** Peak RSS the contract allows each process while it serves a 1,000,000-record run. */
const RSS_LIMIT_BYTES = 300 * 1024 * 1024;

/** A process's peak resident set so far (VmHWM), in bytes. */
const peakRss = async (pid: number): Promise<number> => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error('no VmHWM');
  return Number(kb) * 1024;
};

test.before(async () => {
  database = await createTestDatabase();
  redisPrefix = createRedisPrefix();
  // A deadline far past any plausible run on a loaded machine: these tests check bytes and memory, not speed.
  const env = { SIMULATION_TIMEOUT_MS: '300000' };
  [api, worker] = await Promise.all([
    spawnApiProcess({ databaseUrl: database.url, redisPrefix, env }),
    spawnWorkerProcess({ redisPrefix, threads: 1 }),
  ]);
  const pool = await createDatabasePool(database.url);
  const account = await buildAccount(pool, { plan: 'enterprise' });
  ({ key } = await buildApiKey(pool, account.id));
  await pool.end();
});

test.after.always(async () => {
  await Promise.all([api?.stop(5000), worker?.stop(5000)]);
  await deleteRedisPrefix(redisPrefix);
  await database?.drop();
});

const body = { preset: 'finance', num_interactions: MILLION, seed: 2026 };

test.serial('a 1,000,000-record finance run streams whole in NDJSON: one line per record', async (t) => {
  const response = await streamSimulation(api.url, { key, body, accept: 'application/x-ndjson', needle: '\n' });
  t.is(response.status, 200);
  t.is(response.error, undefined);
  t.is(response.count, MILLION);
  t.true(response.head.startsWith('{"sequence_id":1,"interaction_id":1,'));
  t.true(response.tail.endsWith(`"interaction_id":${MILLION},`) || response.tail.includes(`"interaction_id":${MILLION},`));
});

test.serial('a 1,000,000-record finance run streams whole in CSV: a header row and one row per record', async (t) => {
  const response = await streamSimulation(api.url, { key, body, accept: 'text/csv', needle: '\r\n' });
  t.is(response.status, 200);
  t.is(response.error, undefined);
  t.is(response.count, MILLION + 1);
  t.true(response.head.startsWith('sequence_id,interaction_id,event_time,state,'));
});

test.serial('a 1,000,000-record finance run streams whole in JSON, envelope and all', async (t) => {
  const response = await streamSimulation(api.url, { key, body, needle: '"interaction_id":' });
  t.is(response.status, 200);
  t.is(response.error, undefined);
  t.is(response.count, MILLION);
  t.true(response.head.startsWith('{"simulation_id":'));
  t.regex(response.tail, /\],"scenario":null,"metadata":\{"service_version":"[\d.]+","api_version":"[\d.]+","compute_ms":\d+,"reproducible":true\}\}$/);
  t.is(response.headers.get('simulation-seed'), '2026');
});

test.serial('a 1,000,000-record finance run streams whole in Parquet: every record, in row groups of at most 65,536 rows', async (t) => {
  // About 16 MB: read whole here (the service never holds it), then only its footer is parsed.
  const response = await fetch(`${api.url}/v1/simulations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/vnd.apache.parquet' },
    body: JSON.stringify(body),
  });
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'application/vnd.apache.parquet');
  const file = await response.arrayBuffer();
  const metadata = parquetMetadata(file);
  t.is(Number(metadata.num_rows), MILLION);
  t.true(metadata.row_groups.length >= 16);
  t.true(metadata.row_groups.every((group) => Number(group.num_rows) <= 65_536));
  t.is(metadata.row_groups.reduce((sum, group) => sum + Number(group.num_rows), 0), MILLION);
  t.is(Buffer.from(file, 0, 4).toString('latin1'), 'PAR1');
});

test.serial('neither the API nor the worker process ever held a whole 1,000,000-record run: peak RSS under 300 MB', async (t) => {
  // Runs after the four runs above (serial), so the peaks cover all of them.
  const [apiPeak, workerPeak] = await Promise.all([peakRss(api.pid), peakRss(worker.pid)]);
  t.log(`peak RSS: API ${Math.round(apiPeak / 2 ** 20)} MB, worker ${Math.round(workerPeak / 2 ** 20)} MB`);
  t.true(apiPeak < RSS_LIMIT_BYTES, `API peak RSS ${Math.round(apiPeak / 2 ** 20)} MB`);
  t.true(workerPeak < RSS_LIMIT_BYTES, `worker peak RSS ${Math.round(workerPeak / 2 ** 20)} MB`);
});
