import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { callApi } from './callApi.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const linkIdentity = async (accountId: string, provider: string, providerUserId: string): Promise<void> => {
  await app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO identities (provider, provider_user_id, account_id, email, email_verified)
    VALUES (${provider}, ${providerUserId}, ${accountId}, 'someone@example.com', true)
  `);
};

test('GET /v1/account answers 200 with exactly the Account fields of the caller', async (t) => {
  const account = await buildAccount(app.services.pool, { email: 'Ada@Example.com', display_name: 'Ada Lovelace' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const response = await callApi(app, 'GET', '/v1/account', { key });
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  t.deepEqual(Object.keys(response.body).sort(), ['authentication_methods', 'created_at', 'display_name', 'email', 'id', 'is_active', 'plan']);
  t.is(response.body.id, account.id);
  t.is(response.body.email, 'Ada@Example.com');
  t.is(response.body.display_name, 'Ada Lovelace');
  t.is(response.body.is_active, true);
  t.is(response.body.plan, 'free');
  t.deepEqual(response.body.authentication_methods, []);
  t.regex(response.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});

test('authentication_methods lists each linked provider once, sorted', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key } = await buildApiKey(app.services.pool, account.id);
  await linkIdentity(account.id, 'google', `g-${account.id}`);
  await linkIdentity(account.id, 'github', `gh1-${account.id}`);
  await linkIdentity(account.id, 'github', `gh2-${account.id}`);
  const response = await callApi(app, 'GET', '/v1/account', { key });
  t.deepEqual(response.body.authentication_methods, ['github', 'google']);
});

test("another account's identities do not appear", async (t) => {
  const account = await buildAccount(app.services.pool);
  const other = await buildAccount(app.services.pool);
  await linkIdentity(other.id, 'github', `gh-${other.id}`);
  const { key } = await buildApiKey(app.services.pool, account.id);
  const response = await callApi(app, 'GET', '/v1/account', { key });
  t.deepEqual(response.body.authentication_methods, []);
});

test("plan is the account's current plan", async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'GET', '/v1/account', { key })).body.plan, 'enterprise');
  await app.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET plan = 'pro' WHERE id = ${account.id}`);
  t.is((await callApi(app, 'GET', '/v1/account', { key })).body.plan, 'pro');
});
