import test from 'ava';
import type { DatabasePool } from 'slonik';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { ServiceProcess } from '../helpers/spawnService.ts';
import { spawnWorkerProcess, type WorkerProcess } from '../helpers/startTestWorker.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { createRedisPrefix, deleteRedisPrefix } from '../helpers/testRedis.ts';
import { type PlainResponse, requestOnNewConnection, spawnApiProcess } from '../ops/spawnApiProcess.ts';

// Two API processes and two worker processes sharing one database and one Redis prefix.
let database: TestDatabase;
let pool: DatabasePool;
let redisPrefix: string;
let apis: [ServiceProcess, ServiceProcess];
const workers: WorkerProcess[] = [];

test.before(async () => {
  database = await createTestDatabase();
  pool = await createDatabasePool(database.url);
  redisPrefix = createRedisPrefix();
  apis = (await Promise.all([0, 1].map(() => spawnApiProcess({ databaseUrl: database.url, redisPrefix })))) as [ServiceProcess, ServiceProcess];
  workers.push(...(await Promise.all([0, 1].map(() => spawnWorkerProcess({ redisPrefix, threads: 1 })))));
});

test.after.always(async () => {
  await Promise.all([...(apis ?? []), ...workers].map((child) => child.stop(5000)));
  await pool?.end();
  await database?.drop();
  if (redisPrefix !== undefined) {
    await deleteRedisPrefix(redisPrefix);
  }
});

const json = (response: PlainResponse): any => JSON.parse(response.text);

const call = (baseUrl: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  requestOnNewConnection(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

test('20 simultaneous requests with one key across two API processes run once', async (t) => {
  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);
  const body = { preset: 'finance', num_interactions: 2000, seed: 31 };
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, index) => call(apis[index % 2]!.url, key, 'POST', '/v1/simulations', body, { 'Idempotency-Key': 'two-processes' })),
  );
  const fresh = responses.filter((response) => response.status === 200 && response.headers['idempotent-replayed'] === undefined);
  t.is(fresh.length, 1);
  const first = json(fresh[0]!);
  for (const response of responses) {
    t.true(response.status === 200 || response.status === 409, String(response.status));
    if (response.status === 200) {
      const result = json(response);
      t.is(result.simulation_id, first.simulation_id);
      t.deepEqual(result.data, first.data);
    } else {
      t.is(json(response).error.details.code, 'idempotency_key_in_use');
    }
  }
  // Its row is written after its answer (api/runs/createRun.ts), by the process that answered.
  const rows = await eventually(async () => {
    const count = await pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM simulations WHERE account_id = ${account.id}`);
    return count > 0 ? count : undefined;
  }, 15_000, 20);
  t.is(rows, 1);
  // Whichever process answers, a later retry is the replay of that one run.
  for (const api of apis) {
    const replay = await call(api.url, key, 'POST', '/v1/simulations', body, { 'Idempotency-Key': 'two-processes' });
    t.is(replay.status, 200);
    t.is(replay.headers['idempotent-replayed'], 'true');
    t.is(json(replay).simulation_id, first.simulation_id);
  }
});

test('a rolled key works on every process during its grace period and fails on every process once it ends', async (t) => {
  // Pro: the second roll below, while the first key is still in its grace period, needs room for three
  // working keys (a free account holds at most two: its limit plus one).
  const account = await buildAccount(pool, { plan: 'pro' });
  const long = await buildApiKey(pool, account.id);
  const rolled = await call(apis[0].url, long.key, 'POST', `/v1/api-keys/${long.id}/roll`, { expires_in: 3600 });
  t.is(rolled.status, 201);
  for (const api of apis) {
    t.is((await call(api.url, long.key, 'GET', '/v1/account')).status, 200);
  }
  const fresh = json(rolled).key as string;
  // A short grace period: wait for its end (bounded), never a fixed sleep.
  const next = await call(apis[1].url, fresh, 'POST', `/v1/api-keys/${json(rolled).id}/roll`, { expires_in: 1 });
  t.is(next.status, 201);
  for (const api of apis) {
    const refused = await eventually(async () => {
      const response = await call(api.url, fresh, 'GET', '/v1/account');
      return response.status === 401 ? response : undefined;
    }, 10_000, 100);
    t.is(json(refused).error.details.code, 'invalid_credentials');
  }
  // expires_in 0: refused at once on both processes.
  const newest = json(next).key as string;
  const revoked = await call(apis[0].url, newest, 'POST', `/v1/api-keys/${json(next).id}/roll`, { expires_in: 0 });
  t.is(revoked.status, 201);
  for (const api of apis) {
    t.is((await call(api.url, newest, 'GET', '/v1/account')).status, 401);
    t.is((await call(api.url, json(revoked).key, 'GET', '/v1/account')).status, 200);
  }
});
