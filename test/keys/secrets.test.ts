import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { callApi } from './callApi.ts';

const run = promisify(execFile);
let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

test('no raw key appears in a dump of the whole database or in the logs', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const seed = await buildApiKey(app.services.pool, account.id);
  const keys = [seed.key];
  for (let index = 0; index < 4; index += 1) {
    const created = await callApi(app, 'POST', '/v1/api-keys', { key: seed.key, body: { name: `key ${index}` } });
    t.is(created.status, 201);
    keys.push(created.body.key);
  }
  for (const key of keys) {
    t.is((await callApi(app, 'GET', '/v1/account', { key })).status, 200);
    t.is((await callApi(app, 'GET', '/v1/api-keys', { key })).status, 200);
    // Keys where they do not belong must not reach the logs either.
    await callApi(app, 'GET', `/v1/account?api_key=${key}`);
    await callApi(app, 'POST', '/v1/api-keys', { key, body: `{"name": "${key}"` });
  }
  const revoked = keys.pop() ?? '';
  const revokedId = (await callApi(app, 'GET', '/v1/api-keys', { key: seed.key })).body[0].id;
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${revokedId}`, { key: seed.key })).status, 200);
  t.is((await callApi(app, 'GET', '/v1/account', { key: revoked })).status, 401);
  const unknown = `bs_live_${'Zq9'.repeat(10)}Zq`;
  t.is((await callApi(app, 'GET', '/v1/account', { key: unknown })).status, 401);
  // Let the off-path last_used_at writes land before dumping: every key of the account was used.
  await eventually(async () => {
    const unrecorded = await app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM api_keys WHERE account_id = ${account.id} AND last_used_at IS NULL
    `);
    return unrecorded === 0 ? true : undefined;
  });

  const { stdout: dump } = await run('pg_dump', [app.database.url], { maxBuffer: 64 * 1024 * 1024 });
  t.true(dump.includes(seed.key_prefix), 'the dump holds the key rows');
  const logs = app.logs();
  t.true(logs.includes('"path":"/v1/account"'), 'the logs captured the requests');
  for (const key of [...keys, revoked, unknown]) {
    const secret = key.slice(8);
    t.false(dump.includes(secret), 'raw key found in the database dump');
    t.false(logs.includes(secret), 'raw key found in the logs');
  }
});
