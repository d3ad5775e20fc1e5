import test from 'ava';
import type { DatabasePool } from 'slonik';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { type ServiceProcess, spawnService } from '../helpers/spawnService.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { createRedisPrefix, deleteRedisPrefix } from '../helpers/testRedis.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/freePort.ts';
import { requestOnNewConnection, simulate } from './spawnApiProcess.ts';

let database: TestDatabase;
let pool: DatabasePool;
let redisPrefix: string;
let supervisor: ServiceProcess | undefined;

test.before(async () => {
  database = await createTestDatabase();
  pool = await createDatabasePool(database.url);
  redisPrefix = createRedisPrefix();
});

test.after.always(async () => {
  await supervisor?.stop(10_000);
  await pool?.end();
  await database?.drop();
  if (redisPrefix !== undefined) {
    await deleteRedisPrefix(redisPrefix);
  }
});

interface LogLine {
  readonly msg?: string;
  readonly pid?: number;
  readonly name?: string;
  readonly route?: string;
  readonly process?: string;
}

const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

const pidsOf = (output: string, msg: string): number[] => logLines(output).filter((line) => line.msg === msg).map((line) => line.pid ?? -1);

test('npm start runs API_PROCESSES API processes sharing PORT and WORKER_PROCESSES workers, restarts one that dies, and stops them all on SIGTERM', async (t) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The same entry point as `npm start` (package.json: node scripts/start.ts).
  supervisor = await spawnService({
    script: 'scripts/start.ts',
    env: { DATABASE_URL: database.url, REDIS_PREFIX: redisPrefix, PORT: String(port), API_PROCESSES: '2', WORKER_PROCESSES: '2', WORKER_THREADS: '1' },
    readyLine: '"msg":"worker ready"',
    url,
    timeoutMs: 30_000,
  });
  const started = supervisor;
  await eventually(() => (pidsOf(started.output(), 'api listening').length === 2 && pidsOf(started.output(), 'worker ready').length === 2 ? true : undefined), 30_000);
  const apiPids = new Set(pidsOf(started.output(), 'api listening'));
  t.is(apiPids.size, 2);

  // New connections are spread by the kernel over both processes listening on the one port.
  for (let index = 0; index < 40; index += 1) {
    t.is((await requestOnNewConnection(`${url}/v1/presets`)).status, 200);
  }
  const served = new Set(logLines(started.output()).filter((line) => line.msg === 'request' && line.route === '/v1/presets').map((line) => line.pid));
  // Compared as sorted lists: which process answers first is up to the kernel.
  t.deepEqual([...served].sort(), [...apiPids].sort());

  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);
  const results = await Promise.all([1, 2, 3, 4].map((seed) => simulate(url, key, { preset: 'finance', num_interactions: 50, seed })));
  t.deepEqual(results.map((response) => response.status), [200, 200, 200, 200]);

  // A crashed API process is replaced; the service keeps answering meanwhile.
  const [victim] = [...apiPids];
  process.kill(victim as number, 'SIGKILL');
  await eventually(() => (pidsOf(started.output(), 'api listening').length === 3 ? true : undefined), 15_000);
  t.true(started.output().includes('"msg":"process exited; restarting in 1 s"'));
  t.is((await requestOnNewConnection(`${url}/ready`)).status, 200);

  started.child.kill('SIGTERM');
  // Exit code 0 is a clean drain: the supervisor's backstop timer exits 1.
  t.is(await started.exited, 0, started.output().slice(-3000));
  const output = started.output();
  t.is(pidsOf(output, 'api stopped').length, 2, 'both live API processes drained and stopped');
  t.is(pidsOf(output, 'worker stopped').length, 2, 'both workers stopped');
  t.true(output.includes('"msg":"all processes stopped"'));
  for (const pid of [...pidsOf(output, 'api listening'), ...pidsOf(output, 'worker ready')]) {
    t.throws(() => process.kill(pid, 0), undefined, `process ${pid} is gone`);
  }
});
