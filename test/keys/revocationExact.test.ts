import { execFile } from 'node:child_process';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedisServer, type RedisServer } from '../helpers/startRedisServer.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/startTcpProxy.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { callApi } from './callApi.ts';

// docs/fair-use.md#revocation-is-immediate-whatever-redis-does: a key revoked (or rolled to expiry, or an account
// deactivated) never authenticates again once its request answered, on any API process, whatever Redis
// did between the PostgreSQL commit and the signal after it. Two API processes on one database and one
// Redis of this test's own: `cached` holds the key in its principal cache (POST /v1/simulations answers a
// known key without PostgreSQL); the change is made through another process whose link to Redis is cut,
// or whose Redis is flushed, exactly between its commit and its signal (the commit's answer is held back
// meanwhile by a proxy in front of PostgreSQL). No worker: an invalid body answers 422 once the key is
// accepted and 401/403 when it is not, which is all these tests need to see.
let database: TestDatabase;
let redis: RedisServer;
let postgres: TcpProxy;
let cached: TestApp;

test.before(async () => {
  database = await createTestDatabase();
  redis = await startRedisServer();
  postgres = await startTcpProxy(Number(new URL(database.url).port || 5432));
  cached = await startTestApp({ database, env: { REDIS_URL: redis.url } });
});

test.after.always(async () => {
  await cached?.close();
  await postgres?.close();
  await redis?.stop();
  await database?.drop();
});

const INVALID = { preset: 'finance', num_interactions: 0 };

/** The process that makes the change: its PostgreSQL through the holding proxy, its Redis through one it can cut. */
const startChanger = async (t: { teardown: (fn: () => Promise<void>) => void }): Promise<{ app: TestApp; redisLink: TcpProxy }> => {
  const redisLink = await startTcpProxy(redis.port);
  const url = new URL(database.url);
  url.port = String(postgres.port);
  const app = await startTestApp({ database, redisPrefix: cached.redisPrefix, env: { REDIS_URL: `redis://127.0.0.1:${redisLink.port}`, DATABASE_URL: url.toString() } });
  t.teardown(async () => {
    await app.close();
    await redisLink.close();
  });
  return { app, redisLink };
};

const cachedKey = async (t: { is: (a: unknown, b: unknown, m?: string) => void }, key: string): Promise<void> => {
  // Twice: the second answer comes from the principal cache.
  t.is((await postSimulation(cached, INVALID, { key })).status, 422);
  t.is((await postSimulation(cached, INVALID, { key })).status, 422);
};

/** The pending marks a change leaves in Redis, as they are once they expire unsignalled. */
const expirePendingMarks = async (): Promise<void> => {
  for (const name of await redis.admin.keys(`${cached.redisPrefix}:auth-pending:*`)) {
    await redis.admin.del(name);
  }
};

test.serial('a key revoked while the Redis link fails between the commit and the signal never authenticates again on a process that cached it', async (t) => {
  const account = await buildAccount(cached.services.pool, { plan: 'pro' });
  const admin = await buildApiKey(cached.services.pool, account.id);
  const doomed = await buildApiKey(cached.services.pool, account.id);
  await cachedKey(t, doomed.key);
  await cachedKey(t, admin.key);
  const changer = await startChanger(t);

  const held = postgres.holdCommit(['UPDATE api_keys SET revoked_at'], () => changer.redisLink.cut());
  const revoked = await callApi(changer.app, 'DELETE', `/v1/api-keys/${doomed.id}`, { key: admin.key });
  await held;
  // Committed, and in force whatever the signal did: the answer says so.
  t.is(revoked.status, 200);
  t.deepEqual(revoked.body, { status: 'revoked', id: doomed.id });

  for (let attempt = 0; attempt < 3; attempt += 1) {
    const refused = await postSimulation(cached, INVALID, { key: doomed.key });
    t.is(refused.status, 401);
    t.is(refused.body.error.details.code, 'invalid_credentials');
  }
  t.is((await callApi(cached, 'GET', '/v1/account', { key: doomed.key })).status, 401);
  // The account's other key is unaffected, and the revoked one stays refused once the unsignalled mark expires.
  t.is((await postSimulation(cached, INVALID, { key: admin.key })).status, 422);
  await expirePendingMarks();
  t.is((await postSimulation(cached, INVALID, { key: doomed.key })).status, 401);
  t.is((await postSimulation(cached, INVALID, { key: doomed.key })).status, 401);
  t.is((await postSimulation(cached, INVALID, { key: admin.key })).status, 422);
});

test.serial('a key rolled with a short grace period while the signal fails stops authenticating when the grace ends, on a process that cached it before the roll', async (t) => {
  const account = await buildAccount(cached.services.pool, { plan: 'pro' });
  const rolledKey = await buildApiKey(cached.services.pool, account.id);
  const immediate = await buildApiKey(cached.services.pool, account.id);
  await cachedKey(t, rolledKey.key);
  await cachedKey(t, immediate.key);
  const changer = await startChanger(t);

  const held = postgres.holdCommit(['UPDATE api_keys SET expires_at', 'COMMIT'], () => changer.redisLink.cut());
  const rolled = await callApi(changer.app, 'POST', `/v1/api-keys/${rolledKey.id}/roll`, { key: rolledKey.key, body: { expires_in: 1 } });
  await held;
  t.is(rolled.status, 201);
  // Within a second the grace period ends (bounded wait for the event, no fixed sleep).
  const refused = await eventually(async () => {
    const response = await postSimulation(cached, INVALID, { key: rolledKey.key });
    return response.status === 401 ? response : undefined;
  }, 10_000, 100);
  t.is(refused.body.error.details.code, 'invalid_credentials');
  t.is((await postSimulation(cached, INVALID, { key: rolled.body.key })).status, 422);

  // expires_in 0 through a second changer (the first one's Redis is gone): refused on the next request.
  const second = await startChanger(t);
  const heldAgain = postgres.holdCommit(['UPDATE api_keys SET expires_at', 'COMMIT'], () => second.redisLink.cut());
  const revokedByRoll = await callApi(second.app, 'POST', `/v1/api-keys/${immediate.id}/roll`, { key: immediate.key, body: { expires_in: 0 } });
  await heldAgain;
  t.is(revokedByRoll.status, 201);
  t.is((await postSimulation(cached, INVALID, { key: immediate.key })).status, 401);
});

test.serial('a key revoked while Redis is flushed between the commit and the signal never authenticates again', async (t) => {
  const account = await buildAccount(cached.services.pool, { plan: 'pro' });
  const admin = await buildApiKey(cached.services.pool, account.id);
  const doomed = await buildApiKey(cached.services.pool, account.id);
  await cachedKey(t, doomed.key);
  const changer = await startChanger(t);
  // This Redis is the test's own: flushing it touches nobody else.
  const held = postgres.holdCommit(['UPDATE api_keys SET revoked_at'], async () => {
    await redis.admin.flushall();
  });
  const revoked = await callApi(changer.app, 'DELETE', `/v1/api-keys/${doomed.id}`, { key: admin.key });
  await held;
  t.is(revoked.status, 200);
  t.is((await postSimulation(cached, INVALID, { key: doomed.key })).status, 401);
  t.is((await postSimulation(cached, INVALID, { key: doomed.key })).status, 401);
  t.is((await postSimulation(cached, INVALID, { key: admin.key })).status, 422);
});

test.serial('an account deactivated through the admin CLI while its Redis link fails after the commit is refused at once by a process that cached its key', async (t) => {
  const account = await buildAccount(cached.services.pool, { plan: 'pro' });
  const { key } = await buildApiKey(cached.services.pool, account.id);
  await cachedKey(t, key);
  const redisLink = await startTcpProxy(redis.port);
  t.teardown(() => redisLink.close());
  const url = new URL(database.url);
  url.port = String(postgres.port);
  const held = postgres.holdCommit(['UPDATE accounts SET is_active'], () => redisLink.cut());
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'admin', '--', 'deactivate', '--email', account.email],
      {
        env: { ...process.env, DATABASE_URL: url.toString(), REDIS_URL: `redis://127.0.0.1:${redisLink.port}`, REDIS_PREFIX: cached.redisPrefix, NODE_ENV: 'test' },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
  await held;
  t.is(run.code, 0, run.stderr);
  t.like(JSON.parse(run.stdout), { id: account.id, is_active: false });
  const refused = await postSimulation(cached, INVALID, { key });
  t.is(refused.status, 403);
  t.is(refused.body.error.details.code, 'account_disabled');
  await expirePendingMarks();
  t.is((await postSimulation(cached, INVALID, { key })).status, 403);
});
