import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { createApiKey } from '../../shared/auth/createApiKey.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { callApi } from './callApi.ts';

const N = 20;
let app: TestApp;

test.before(async () => {
  app = await startTestApp();
  // A plan of this file's own, so the limit under test is not one the seeded plans happen to have.
  await app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO plans (name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request, max_concurrent_simulations, max_active_api_keys)
    VALUES ('keys_three', 5, 100, 10000, 1000, 1, 3)
  `);
});

test.after.always(async () => {
  await app?.close();
});

const activeKeys = async (accountId: string): Promise<number> =>
  app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM api_keys WHERE account_id = ${accountId} AND revoked_at IS NULL
  `);

const createConcurrently = async (key: string) =>
  Promise.all(Array.from({ length: N }, (_, index) => callApi(app, 'POST', '/v1/api-keys', { key, body: { name: `race ${index}` } })));

for (const [plan, limit] of [['keys_three', 3], ['pro', 5], ['free', 1]] as const) {
  test(`${N} concurrent creates on a ${plan} account (limit ${limit}) leave exactly ${limit} active keys, the rest 403 api_key_limit_reached`, async (t) => {
    const account = await buildAccount(app.services.pool, { plan });
    // The key the requests authenticate with is itself one of the active keys.
    const caller = await buildApiKey(app.services.pool, account.id);
    const responses = await createConcurrently(caller.key);
    const created = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status === 403);
    t.is(created.length, limit - 1);
    t.is(refused.length, N - (limit - 1));
    for (const response of refused) {
      t.is(response.body.error.details.code, 'api_key_limit_reached');
      t.is(response.body.error.details.limit, limit);
    }
    t.is(await activeKeys(account.id), limit);
  });
}

test(`${N} concurrent key creations on a free account with no key leave exactly one (the same code path, without HTTP)`, async (t) => {
  // Over HTTP a free account already spends its one key on authenticating; this is the contest for it.
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const outcomes = await Promise.allSettled(Array.from({ length: N }, () => createApiKey(app.services.pool, { accountId: account.id, name: 'race' })));
  t.is(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      t.is((outcome.reason as { code?: string }).code, 'api_key_limit_reached');
    }
  }
  t.is(await activeKeys(account.id), 1);
});

test(`${N} concurrent revokes of one key all answer 200 and set revoked_at once`, async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const caller = await buildApiKey(app.services.pool, account.id);
  const target = await buildApiKey(app.services.pool, account.id);
  const responses = await Promise.all(
    Array.from({ length: N }, () => callApi(app, 'DELETE', `/v1/api-keys/${target.id}`, { key: caller.key })),
  );
  for (const response of responses) {
    t.is(response.status, 200);
    t.deepEqual(response.body, { status: 'revoked', id: target.id });
  }
  // xmin is the transaction that last wrote the row: unchanged means no later revoke wrote it again.
  const row = sql.type(z.object({ revoked_at: z.string().nullable(), version: z.string() }))`
    SELECT revoked_at, xmin::text AS version FROM api_keys WHERE id = ${target.id}
  `;
  const afterBurst = await app.services.pool.one(row);
  t.not(afterBurst.revoked_at, null);
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${target.id}`, { key: caller.key })).status, 200);
  t.deepEqual(await app.services.pool.one(row), afterBurst);
  t.is((await callApi(app, 'GET', '/v1/account', { key: target.key })).status, 401);
});
