import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { sweepStaleSimulations } from '../../api/runs/sweepStaleSimulations.ts';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { DatabasePool } from 'slonik';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';
import { startRedisServer, type RedisServer } from '../helpers/startRedisServer.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/startTcpProxy.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { deleteRedisPrefix, TEST_REDIS } from '../helpers/testRedis.ts';
import { spawnApiProcess, simulate } from '../ops/spawnApiProcess.ts';
import { postSimulation } from './postSimulation.ts';

// A run's ledger row is written after its answer (docs/architecture.md, "The ledger row after the
// answer"): the run is settled in Redis before its last bytes, the row follows. The API reaches
// PostgreSQL through a proxy that holds the row's statement in flight (or commits it and holds the
// acknowledgement), so each test looks into that window at the byte it chooses.
let database: TestDatabase;
/** PostgreSQL without the proxy: what the test reads and builds with. */
let direct: DatabasePool;
let proxy: TcpProxy;
let app: TestApp;
let stopWorker: () => Promise<void>;

// The ledger statement whose parameters carry a completed settlement.
const ROW_MARKER = '{"completed"}';

test.before(async () => {
  database = await createTestDatabase();
  direct = await createDatabasePool(database.url);
  proxy = await startTcpProxy(5432);
  const url = new URL(database.url);
  url.port = String(proxy.port);
  app = await startTestApp({ database, env: { DATABASE_URL: url.toString() } });
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  stopWorker = () => worker.close();
});

test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
  await proxy?.close();
  await direct?.end();
  await database?.drop();
  // Should anything still hold this process ten seconds after its last hook, say what (the timer itself
  // keeps nothing alive).
  setTimeout(() => process.stderr.write(`still running after the hooks: ${process.getActiveResourcesInfo().join(', ')}\n`), 10_000).unref();
});

const caller = async (): Promise<{ accountId: string; key: string }> => {
  const account = await buildAccount(direct, { plan: 'enterprise' });
  return { accountId: account.id, key: (await buildApiKey(direct, account.id)).key };
};

const get = async (path: string, key: string): Promise<any> => {
  const response = await fetch(`${app.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return response.json();
};

const rowsOf = (accountId: string) =>
  direct.any(sql.type(z.object({ id: z.string(), status: z.string(), charged_interactions: z.number().nullable() }))`
    SELECT id, status, charged_interactions FROM simulations WHERE account_id = ${accountId}
  `);

/** What a client reads of the account through the API: the usage, today's completed runs, the history and the run by id. */
const seenThroughApi = async (key: string, id: string) => {
  const [usage, daily, history, one] = await Promise.all([get('/v1/usage', key), get('/v1/usage/daily', key), get('/v1/simulations', key), get(`/v1/simulations/${id}`, key)]);
  return {
    usage: usage.usage,
    completedToday: daily.days.at(-1).by_status.completed,
    totals: { runs: daily.totals.runs, requests: daily.totals.requests, interactions: daily.totals.interactions },
    history: history.data.map((run: { simulation_id: string; status: string }) => [run.simulation_id, run.status]),
    status: one.status,
  };
};

const countedOnce = (id: string, interactions: number) => ({
  usage: { requests: 1, interactions },
  completedToday: { runs: 1, requests: 1, interactions },
  totals: { runs: 1, requests: 1, interactions },
  history: [[id, 'completed']],
  status: 'completed',
});

test.serial('a client that read the whole body finds the run counted while its row is still in flight, and once when it lands', async (t) => {
  const { accountId, key } = await caller();
  let seen: Awaited<ReturnType<typeof seenThroughApi>> | undefined;
  let rowsMeanwhile: readonly unknown[] | undefined;
  let response: Awaited<ReturnType<typeof postSimulation>> | undefined;
  const answered = postSimulation(app, { preset: 'finance', num_interactions: 25, seed: 3 }, { key });
  const held = proxy.holdRequest(ROW_MARKER, async () => {
    // The row's INSERT is held in the proxy: the answer must not wait for it.
    response = await answered;
    seen = await seenThroughApi(key, response.body.simulation_id);
    rowsMeanwhile = await rowsOf(accountId);
  });
  await held;
  t.is(response?.status, 200);
  const id = response?.body.simulation_id as string;
  t.deepEqual(rowsMeanwhile, [], 'the answer went out before the row was written');
  t.deepEqual(seen, countedOnce(id, 25));

  await ledgerWritten(app.services);
  t.deepEqual(await rowsOf(accountId), [{ id, status: 'completed', charged_interactions: 25 }]);
  t.deepEqual(await seenThroughApi(key, id), countedOnce(id, 25));
});

test.serial('a row committed while its settled entry is still in Redis is counted once: the ledger says which it has in the same snapshot', async (t) => {
  const { accountId, key } = await caller();
  let seen: Awaited<ReturnType<typeof seenThroughApi>> | undefined;
  let inflight = -1;
  let response: Awaited<ReturnType<typeof postSimulation>> | undefined;
  const answered = postSimulation(app, { preset: 'finance', num_interactions: 9, seed: 4 }, { key });
  // The INSERT commits; its acknowledgement is held, so the process has not dropped the entry yet.
  await proxy.holdCommit([ROW_MARKER], async () => {
    response = await answered;
    inflight = await app.services.redis.hlen(`${app.redisPrefix}:inflight:{${accountId}}`);
    seen = await seenThroughApi(key, response.body.simulation_id);
  });
  const id = response?.body.simulation_id as string;
  t.is(inflight, 1, 'the settled entry is still there');
  t.is((await rowsOf(accountId)).length, 1);
  t.deepEqual(seen, countedOnce(id, 9));
  await ledgerWritten(app.services);
  t.deepEqual(await seenThroughApi(key, id), countedOnce(id, 9));
});

test.serial('a run settled but not yet recorded when its API process is killed is recorded once by the stale-run sweeper, and counted meanwhile', async (t) => {
  const { accountId, key } = await caller();
  // Another API process of the same service, reaching PostgreSQL through a proxy of its own.
  const link = await startTcpProxy(5432);
  t.teardown(() => link.close());
  const url = new URL(database.url);
  url.port = String(link.port);
  const doomed = await spawnApiProcess({ databaseUrl: url.toString(), redisPrefix: app.redisPrefix });
  t.teardown(async () => {
    await doomed.stop(1000);
  });
  let response: Awaited<ReturnType<typeof simulate>> | undefined;
  // The row's INSERT never reaches PostgreSQL: the process is killed while it is held.
  const answered = simulate(doomed.url, key, { preset: 'healthcare', num_interactions: 12, seed: 5 });
  const held = link.holdRequest(ROW_MARKER, async () => {
    response = await answered;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    await link.cut();
  });
  await held.catch(() => {});
  t.is(response?.status, 200);
  const id = JSON.parse(response?.text ?? '{}').simulation_id as string;
  t.deepEqual(await rowsOf(accountId), []);
  // The settled entry in Redis stands for the row: the run is counted by every other process.
  t.deepEqual(await seenThroughApi(key, id), countedOnce(id, 12));

  // Past the dead process's lease and the sweeper's margin (the clock moved on, not waited for).
  const later = Date.now() + 10 * 60_000;
  t.is(await sweepStaleSimulations(app.services, later), 1);
  t.is(await sweepStaleSimulations(app.services, later), 0);
  t.deepEqual(await rowsOf(accountId), [{ id, status: 'completed', charged_interactions: 12 }]);
  t.deepEqual(await seenThroughApi(key, id), countedOnce(id, 12));
});

test.serial('Redis losing its data while a row is in flight costs nothing: the process puts the settled entry back and the quota counts it once', async (t) => {
  // On one Redis, a server of this test's own, flushed whole. A Redis Cluster cannot be started per test
  // here: there, losing the data is losing every key of this app's prefix (the limits' and the queue's).
  const own: RedisServer | undefined = TEST_REDIS.kind === 'cluster' ? undefined : await startRedisServer();
  if (own !== undefined) t.teardown(() => own.stop());
  const url = new URL(database.url);
  url.port = String(proxy.port);
  const lonely = await startTestApp({ database, env: { DATABASE_URL: url.toString(), ...(own === undefined ? {} : { REDIS_URL: own.url }) } });
  t.teardown(() => lonely.close());
  const worker = await startTestWorker({ redisPrefix: lonely.redisPrefix, ...(own === undefined ? {} : { redisUrl: own.url }) });
  t.teardown(() => worker.close());
  const loseRedisData = async (): Promise<void> => {
    await (own === undefined ? deleteRedisPrefix(lonely.redisPrefix) : own.admin.flushall());
  };
  const account = await buildAccount(direct, { plan: 'free' });
  const { key } = await buildApiKey(direct, account.id);
  const post = async (seed: number): Promise<number> => {
    const answer = await fetch(`${lonely.url}/v1/simulations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ preset: 'finance', num_interactions: 1, seed }),
    });
    await answer.arrayBuffer();
    return answer.status;
  };
  const usage = (await (await fetch(`${lonely.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { plan: { monthly_requests: number } };
  const monthly = usage.plan.monthly_requests;
  t.true(monthly > 2);
  // All but two requests of the month used, as the ledger records them, before the rate limiter's minute.
  const periodStart = monthlyPeriod(new Date()).start.toISOString();
  await direct.query(sql.type(z.object({}))`
    INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start, created_at, finished_at, charged_interactions)
    SELECT gen_random_uuid(), ${account.id}, 'finance', 'balanced_investor', n, 1, 'completed', ${periodStart}::timestamptz,
      greatest(${periodStart}::timestamptz, now() - interval '2 minutes'), now(), 1
    FROM generate_series(1, ${monthly - 2}) AS n
  `);
  let first = 0;
  let after: number[] = [];
  const answered = post(6);
  const held = proxy.holdRequest(ROW_MARKER, async () => {
    // Answered, settled in Redis; its row's INSERT is held in the proxy while Redis loses everything.
    first = await answered;
    await loseRedisData();
    // Within one interval the process puts back what Redis lost: the settled entry, with its charge.
    await lonely.services.leases.flush();
    // The quota is rebuilt from the ledger, which lacks the held row, and the entry, which stands for it:
    // one request of the month is left, so of three at once one runs.
    after = await Promise.all([7, 8, 9].map(post));
  });
  await held;
  t.is(first, 200);
  t.deepEqual(after.sort(), [200, 403, 403]);
  await ledgerWritten(lonely.services);
  t.is((await rowsOf(account.id)).length, monthly);
});
