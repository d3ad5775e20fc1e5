import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { callApi } from './callApi.ts';

// docs/fair-use.md#api-keys: at most the plan's active-key limit plus one keys
// authenticate (keys in a roll's grace period count), a roll beyond that is 409 api_key_not_rollable, and
// creating and rolling keys is limited to 20 per account per hour (429 rate_limit_exceeded). Two API
// processes on one database and one Redis prefix, as production runs several.
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

const authenticatingKeys = async (accountId: string): Promise<number> =>
  first.services.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM api_keys WHERE account_id = ${accountId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
  `);

test('rolling the newest key again and again leaves at most the limit plus one keys authenticating: the next roll is 409 api_key_not_rollable', async (t) => {
  const account = await buildAccount(first.services.pool, { plan: 'free' });
  let current = await buildApiKey(first.services.pool, account.id);
  const rolled = await callApi(first, 'POST', `/v1/api-keys/${current.id}/roll`, { key: current.key });
  t.is(rolled.status, 201);
  current = { ...current, id: rolled.body.id, key: rolled.body.key };
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const refused = await callApi(first, 'POST', `/v1/api-keys/${current.id}/roll`, { key: current.key, body: { expires_in: 604_800 } });
    t.is(refused.status, 409);
    t.like(refused.body.error.details, { code: 'api_key_not_rollable', limit: 2 });
  }
  t.is(await authenticatingKeys(account.id), 2);
  // A roll that revokes the old key at once adds no working key: always allowed.
  const replaced = await callApi(first, 'POST', `/v1/api-keys/${current.id}/roll`, { key: current.key, body: { expires_in: 0 } });
  t.is(replaced.status, 201);
  t.is(await authenticatingKeys(account.id), 2);
});

test('keys in a grace period count for creations too: a pro account never holds more than six working keys', async (t) => {
  const account = await buildAccount(first.services.pool, { plan: 'pro' });
  const keys = await Promise.all([0, 1, 2, 3].map(() => buildApiKey(first.services.pool, account.id)));
  const [caller] = keys;
  if (caller === undefined) {
    t.fail('no key');
    return;
  }
  // Four active keys and two rolls: four active, two in their grace period (six working keys).
  for (const key of keys.slice(0, 2)) {
    t.is((await callApi(first, 'POST', `/v1/api-keys/${key.id}/roll`, { key: caller.key })).status, 201);
  }
  t.is(await authenticatingKeys(account.id), 6);
  // Room under the active-key limit (four of five), none under the limit plus one.
  const created = await callApi(first, 'POST', '/v1/api-keys', { key: caller.key, body: { name: 'seventh' } });
  t.is(created.status, 403);
  t.like(created.body.error.details, { code: 'api_key_limit_reached', limit: 5 });
  const third = keys[2];
  const rolledAgain = await callApi(first, 'POST', `/v1/api-keys/${third?.id}/roll`, { key: caller.key });
  t.is(rolledAgain.status, 409);
  t.like(rolledAgain.body.error.details, { code: 'api_key_not_rollable', limit: 6 });
  t.is(await authenticatingKeys(account.id), 6);
});

test('many simultaneous rolls and creations on two API processes never leave more than the limit plus one working keys', async (t) => {
  const account = await buildAccount(first.services.pool, { plan: 'pro' });
  const keys = await Promise.all([0, 1, 2, 3, 4].map(() => buildApiKey(first.services.pool, account.id)));
  const caller = keys[0]?.key ?? '';
  const requests = [
    ...keys.map((key, index) => () => callApi(index % 2 === 0 ? first : second, 'POST', `/v1/api-keys/${key.id}/roll`, { key: caller, body: { expires_in: 3600 } })),
    ...Array.from({ length: 10 }, (_, index) => () => callApi(index % 2 === 0 ? second : first, 'POST', '/v1/api-keys', { key: caller, body: { name: `race ${index}` } })),
  ];
  const responses = await Promise.all(requests.map((send) => send()));
  const statuses = responses.map((response) => response.status);
  t.true(statuses.every((status) => status === 201 || status === 403 || status === 409), statuses.join(','));
  t.true(statuses.filter((status) => status === 201).length >= 1);
  t.is(await authenticatingKeys(account.id), 6);
});

test('creating and rolling keys is limited to 20 per account per hour, exactly, across API processes: 429 with Retry-After and details', async (t) => {
  const caller = await buildCaller(first.services.pool, { max_active_api_keys: 100 });
  const keyId = (await callApi(first, 'GET', '/v1/api-keys', { key: caller.key })).body[0].id as string;
  // One creation whose answer a client could lose, with an Idempotency-Key.
  const kept = await callApi(first, 'POST', '/v1/api-keys', { key: caller.key, body: { name: 'kept' }, headers: { 'Idempotency-Key': 'kept-1' } });
  t.is(kept.status, 201);
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, index) => callApi(index % 2 === 0 ? first : second, 'POST', '/v1/api-keys', { key: caller.key, body: { name: `burst ${index}` } })),
  );
  const statuses = responses.map((response) => response.status);
  t.is(statuses.filter((status) => status === 201).length, 19, statuses.join(','));
  t.is(statuses.filter((status) => status === 429).length, 11, statuses.join(','));
  for (const refused of responses.filter((response) => response.status === 429)) {
    t.like(refused.body.error.details, { code: 'rate_limit_exceeded', limit: 20 });
    const retryAfter = refused.body.error.details.retry_after as number;
    t.is(Number(refused.headers.get('retry-after')), retryAfter);
    t.true(retryAfter > 3500 && retryAfter <= 3600, String(retryAfter));
  }
  // Rolls share the window.
  const roll = await callApi(second, 'POST', `/v1/api-keys/${keyId}/roll`, { key: caller.key });
  t.is(roll.status, 429);
  t.is(roll.body.error.details.code, 'rate_limit_exceeded');
  t.truthy(roll.headers.get('retry-after'));
  // An idempotent replay creates nothing and is not counted: the client that lost its answer learns it.
  const replay = await callApi(second, 'POST', '/v1/api-keys', { key: caller.key, body: { name: 'kept' }, headers: { 'Idempotency-Key': 'kept-1' } });
  t.is(replay.status, 201);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.is(replay.body.id, kept.body.id);
  // Another account has a window of its own.
  const other = await buildCaller(first.services.pool, {});
  t.is((await callApi(second, 'POST', '/v1/api-keys', { key: other.key, body: { name: 'own' } })).status, 201);
});

test('key changes whose body is refused (400, 413, 415, 422) do not count in the hourly window: twenty valid ones still pass after them', async (t) => {
  const caller = await buildCaller(first.services.pool, { max_active_api_keys: 100 });
  const keyId = (await callApi(first, 'GET', '/v1/api-keys', { key: caller.key })).body[0].id as string;
  const refusals: ReadonlyArray<{ path: string; body: string; headers?: Record<string, string>; status: number }> = [
    { path: '/v1/api-keys', body: '{"name":', status: 400 },
    { path: '/v1/api-keys', body: JSON.stringify({ name: 'x'.repeat(20_000) }), status: 413 },
    { path: '/v1/api-keys', body: JSON.stringify({ name: 'text' }), headers: { 'Content-Type': 'text/plain' }, status: 415 },
    { path: '/v1/api-keys', body: JSON.stringify({ name: 'unknown', colour: 'red' }), status: 422 },
    { path: `/v1/api-keys/${keyId}/roll`, body: JSON.stringify({ expires_in: -1 }), status: 422 },
    { path: `/v1/api-keys/${keyId}/roll`, body: '[', status: 400 },
  ];
  // Five rounds of six: 30 refused bodies, more than the window holds.
  for (let round = 0; round < 5; round += 1) {
    for (const refusal of refusals) {
      const answer = await callApi(round % 2 === 0 ? first : second, 'POST', refusal.path, { key: caller.key, body: refusal.body, ...(refusal.headers === undefined ? {} : { headers: refusal.headers }) });
      t.is(answer.status, refusal.status, refusal.path);
    }
  }
  const created = await Promise.all(Array.from({ length: 20 }, (_, index) => callApi(index % 2 === 0 ? first : second, 'POST', '/v1/api-keys', { key: caller.key, body: { name: `valid ${index}` } })));
  t.deepEqual(
    created.map((answer) => answer.status),
    Array.from({ length: 20 }, () => 201),
  );
  // The window is now full: the 21st valid change is refused.
  const over = await callApi(first, 'POST', `/v1/api-keys/${keyId}/roll`, { key: caller.key });
  t.is(over.status, 429);
  t.is(over.body.error.details.code, 'rate_limit_exceeded');
});
