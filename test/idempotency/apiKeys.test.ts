import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildApiKey } from '../helpers/factories.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { callApi } from '../keys/callApi.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const keyCount = async (accountId: string): Promise<number> =>
  app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM api_keys WHERE account_id = ${accountId}`);

test('a replayed key creation answers 201 with the created form without the key, and creates nothing', async (t) => {
  // Room for exactly one more key: a second creation would be 403, a replay is not a creation.
  const caller = await buildCaller(app.services.pool, { max_active_api_keys: 2 });
  const headers = { 'Idempotency-Key': 'create-ci-key' };
  const first = await callApi(app, 'POST', '/v1/api-keys', { key: caller.key, body: { name: 'ci' }, headers });
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  t.regex(first.body.key, /^bs_live_[A-Za-z0-9]{32}$/);
  const again = await callApi(app, 'POST', '/v1/api-keys', { key: caller.key, body: '{ "name" : "ci" }', headers });
  t.is(again.status, 201);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(again.headers.get('cache-control'), 'no-store');
  t.deepEqual(again.body, { id: first.body.id, name: 'ci', key_prefix: first.body.key_prefix, created_at: first.body.created_at });
  t.is(await keyCount(caller.accountId), 2);
  // Nothing keeps the raw key: not the idempotency record either.
  const kept = await app.services.pool.oneFirst(sql.type(z.object({ response: z.string() }))`
    SELECT response::text AS response FROM idempotency_keys WHERE account_id = ${caller.accountId}
  `);
  t.false(kept.includes(first.body.key));
  t.false(kept.includes(first.body.key.slice(12)));
});

test('20 simultaneous creations with one key create one key', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_active_api_keys: 50 });
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => callApi(app, 'POST', '/v1/api-keys', { key: caller.key, body: { name: 'once' }, headers: { 'Idempotency-Key': 'burst' } })),
  );
  const withKey = responses.filter((response) => response.status === 201 && response.body.key !== undefined);
  t.is(withKey.length, 1);
  for (const response of responses) {
    t.true(response.status === 201 || response.status === 409, String(response.status));
    if (response.status === 201) {
      t.is(response.body.id, withKey[0]?.body.id);
    } else {
      t.is(response.body.error.details.code, 'idempotency_key_in_use');
      t.is(response.headers.get('retry-after'), '1');
    }
  }
  t.is(await keyCount(caller.accountId), 2);
});

test('a creation refused by the key limit keeps nothing: once there is room the same Idempotency-Key creates', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_active_api_keys: 2 });
  const extra = await buildApiKey(app.services.pool, caller.accountId);
  const headers = { 'Idempotency-Key': 'after-limit' };
  const refused = await callApi(app, 'POST', '/v1/api-keys', { key: caller.key, body: { name: 'next' }, headers });
  t.is(refused.status, 403);
  t.is(refused.body.error.details.code, 'api_key_limit_reached');
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${extra.id}`, { key: caller.key })).status, 200);
  const created = await callApi(app, 'POST', '/v1/api-keys', { key: caller.key, body: { name: 'next' }, headers });
  t.is(created.status, 201);
  t.is(created.headers.get('idempotent-replayed'), null);
  t.regex(created.body.key, /^bs_live_/);
});
