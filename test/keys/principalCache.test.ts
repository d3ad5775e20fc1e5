import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { authVersionKey } from '../../shared/auth/authVersion.ts';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/startTcpProxy.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { callApi } from './callApi.ts';

// Two API processes on one database and one Redis prefix, as production runs several; no worker: every
// request here is decided before a run would start (an invalid body answers 422 once authenticated and
// counted, which is all these tests need to see).
let database: TestDatabase;
let first: TestApp;
let second: TestApp;

test.before(async () => {
  database = await createTestDatabase();
  first = await startTestApp({ database });
  second = await startTestApp({ database, redisPrefix: first.redisPrefix });
});

test.after.always(async () => {
  await second?.close();
  await first?.close();
  await database?.drop();
});

const INVALID = { preset: 'finance', num_interactions: 0 };

test('a key revoked through one API process fails on the very next simulation request to another that cached it', async (t) => {
  const account = await buildAccount(first.services.pool, { plan: 'pro' });
  const admin = await buildApiKey(first.services.pool, account.id);
  const doomed = await buildApiKey(first.services.pool, account.id);
  t.is((await postSimulation(second, INVALID, { key: doomed.key })).status, 422);
  t.is((await postSimulation(second, INVALID, { key: doomed.key })).status, 422);
  t.is((await callApi(first, 'DELETE', `/v1/api-keys/${doomed.id}`, { key: admin.key })).status, 200);
  const refused = await postSimulation(second, INVALID, { key: doomed.key });
  t.is(refused.status, 401);
  t.is(refused.body.error.details.code, 'invalid_credentials');
  // The account's other key is unaffected.
  t.is((await postSimulation(second, INVALID, { key: admin.key })).status, 422);
});

test('when Redis lost the credential version, PostgreSQL decides: a deactivation is enforced on the next request', async (t) => {
  const account = await buildAccount(first.services.pool);
  const { key } = await buildApiKey(first.services.pool, account.id);
  t.is((await postSimulation(first, INVALID, { key })).status, 422);
  // A change written past the code paths that announce it, and Redis's copy of the version lost.
  await first.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET is_active = false WHERE id = ${account.id}`);
  await first.services.redis.del(authVersionKey(first.redisPrefix, account.id));
  const refused = await postSimulation(first, INVALID, { key });
  t.is(refused.status, 403);
  t.is(refused.body.error.details.code, 'account_disabled');
});

test('a plan change announced by the set-plan path applies to a cached key on the next request of every process', async (t) => {
  const account = await buildAccount(first.services.pool, { plan: 'free' });
  const { key } = await buildApiKey(first.services.pool, account.id);
  for (const app of [first, second]) {
    t.is((await postSimulation(app, INVALID, { key })).headers.get('ratelimit-policy'), '"rpm";q=5;w=60');
  }
  await first.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET plan = 'pro' WHERE id = ${account.id}`);
  const { publishAuthChange } = await import('../../shared/auth/authVersion.ts');
  await publishAuthChange(first.services.redis, first.redisPrefix, account.id);
  const pro = await first.services.pool.oneFirst(sql.type(z.object({ rpm: z.number() }))`SELECT requests_per_minute AS rpm FROM plans WHERE name = 'pro'`);
  for (const app of [first, second]) {
    t.is((await postSimulation(app, INVALID, { key })).headers.get('ratelimit-policy'), `"rpm";q=${pro};w=60`);
  }
});

test.serial('a known key is authenticated without PostgreSQL: with the database link cut, an invalid body still answers 422', async (t) => {
  const proxy: TcpProxy = await startTcpProxy(5432);
  const url = new URL(database.url);
  url.port = String(proxy.port);
  const app = await startTestApp({ database, env: { DATABASE_URL: url.toString() } });
  t.teardown(async () => {
    await app.close();
    await proxy.close();
  });
  const pool = await createDatabasePool(database.url);
  t.teardown(() => pool.end());
  const account = await buildAccount(pool);
  const { key } = await buildApiKey(pool, account.id);
  t.is((await postSimulation(app, INVALID, { key })).status, 422);
  await proxy.cut();
  const response = await postSimulation(app, INVALID, { key });
  t.is(response.status, 422);
  t.is(response.body.error.details.code, 'validation_failed');
  // The database is really out of reach for this app: a route that must read it fails.
  t.is((await callApi(app, 'GET', '/v1/usage', { key })).status, 503);
});
