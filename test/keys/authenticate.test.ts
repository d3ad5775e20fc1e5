import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { eventually } from '../helpers/eventually.ts';
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

/** Waits for the off-path write of a key's use to land, and returns it. */
const recordedUse = (keyId: string): Promise<string> => eventually(async () => (await lastUsedAt(keyId)) ?? undefined);

const lastUsedAt = async (keyId: string): Promise<string | null> =>
  app.services.pool.oneFirst(sql.type(z.object({ last_used_at: z.string().nullable() }))`
    SELECT last_used_at FROM api_keys WHERE id = ${keyId}
  `);

const PROTECTED: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/v1/account'],
  ['GET', '/v1/api-keys'],
  ['POST', '/v1/api-keys'],
  ['DELETE', '/v1/api-keys/00000000-0000-4000-8000-000000000000'],
];

test('every protected route answers 401 authentication_required with WWW-Authenticate: Bearer when no credentials are sent', async (t) => {
  for (const [method, path] of PROTECTED) {
    const response = await callApi(app, method, path);
    t.is(response.status, 401, `${method} ${path}`);
    t.is(response.body.error.details.code, 'authentication_required');
    t.is(response.body.error.status_code, 401);
    t.is(response.body.error.request_id, response.headers.get('x-request-id'));
    t.regex(response.headers.get('www-authenticate') ?? '', /^Bearer\b/);
  }
});

test('authentication comes before body parsing: an unauthenticated POST with broken JSON is 401, not 400', async (t) => {
  const response = await callApi(app, 'POST', '/v1/api-keys', { body: '{not json' });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'authentication_required');
});

test('an API key in a query parameter is ignored: 401 authentication_required', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key } = await buildApiKey(app.services.pool, account.id);
  for (const parameter of ['api_key', 'key', 'access_token', 'token']) {
    const response = await callApi(app, 'GET', `/v1/account?${parameter}=${key}`);
    t.is(response.status, 401, parameter);
    t.is(response.body.error.details.code, 'authentication_required');
  }
});

test('a malformed Authorization header answers 401 invalid_credentials with WWW-Authenticate: Bearer', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key } = await buildApiKey(app.services.pool, account.id);
  const malformed = [
    'Bearer',
    'Bearer nope',
    `Bearer ${key.slice(0, -1)}`,
    `Bearer ${key}x`,
    `Bearer bs_test_${key.slice(8)}`,
    `Bearer ${key.slice(0, -1)}!`,
    `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    key,
    `Token ${key}`,
    // One space separates scheme and key (README); two are not a looser spelling of the same.
    `Bearer  ${key}`,
    `Bearer\t${key}`,
  ];
  for (const authorization of malformed) {
    const response = await callApi(app, 'GET', '/v1/account', { headers: { Authorization: authorization } });
    t.is(response.status, 401, authorization);
    t.is(response.body.error.details.code, 'invalid_credentials');
    t.regex(response.headers.get('www-authenticate') ?? '', /^Bearer\b/);
  }
});

test('a well-formed key that was never issued answers 401 invalid_credentials', async (t) => {
  const response = await callApi(app, 'GET', '/v1/account', { key: `bs_live_${'A'.repeat(32)}` });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
  t.regex(response.headers.get('www-authenticate') ?? '', /^Bearer\b/);
});

test('a valid key authenticates, with the scheme name in any case', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key } = await buildApiKey(app.services.pool, account.id);
  for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
    const response = await callApi(app, 'GET', '/v1/account', { headers: { Authorization: `${scheme} ${key}` } });
    t.is(response.status, 200, scheme);
    t.is(response.body.id, account.id);
  }
});

test('a key of a disabled account answers 403 account_disabled', async (t) => {
  const account = await buildAccount(app.services.pool, { is_active: false });
  const { key } = await buildApiKey(app.services.pool, account.id);
  for (const [method, path] of PROTECTED) {
    const response = await callApi(app, method, path, { key });
    t.is(response.status, 403, `${method} ${path}`);
    t.is(response.body.error.details.code, 'account_disabled');
  }
});

test('disabling an account takes effect on the next request', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key } = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'GET', '/v1/account', { key })).status, 200);
  await app.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET is_active = false WHERE id = ${account.id}`);
  const response = await callApi(app, 'GET', '/v1/account', { key });
  t.is(response.status, 403);
  t.is(response.body.error.details.code, 'account_disabled');
});

test('a revoked key of a disabled account is invalid credentials, not a disabled account', async (t) => {
  const account = await buildAccount(app.services.pool, { is_active: false });
  const { key, id } = await buildApiKey(app.services.pool, account.id);
  await app.services.pool.query(sql.type(z.object({}))`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`);
  const response = await callApi(app, 'GET', '/v1/account', { key });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('a key revoked through the API fails on the very next request', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const first = await buildApiKey(app.services.pool, account.id);
  const second = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'GET', '/v1/account', { key: second.key })).status, 200);
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${second.id}`, { key: first.key })).status, 200);
  const response = await callApi(app, 'GET', '/v1/account', { key: second.key });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('a key that revokes itself fails on the very next request', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key, id } = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${id}`, { key })).status, 200);
  const response = await callApi(app, 'GET', '/v1/api-keys', { key });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('a key revoked on one API process fails on the very next request to another', async (t) => {
  const other = await startTestApp({ database: app.database });
  t.teardown(() => other.close());
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const admin = await buildApiKey(app.services.pool, account.id);
  const victim = await buildApiKey(app.services.pool, account.id);
  // Warm both processes with the key, so a cache of either would be holding it.
  t.is((await callApi(app, 'GET', '/v1/account', { key: victim.key })).status, 200);
  t.is((await callApi(other, 'GET', '/v1/account', { key: victim.key })).status, 200);
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${victim.id}`, { key: admin.key })).status, 200);
  t.is((await callApi(other, 'GET', '/v1/account', { key: victim.key })).status, 401);
  t.is((await callApi(app, 'GET', '/v1/account', { key: victim.key })).status, 401);
});

test('last_used_at is null until the key is used, then records the use', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key, id } = await buildApiKey(app.services.pool, account.id);
  t.is(await lastUsedAt(id), null);
  const before = Date.now();
  t.is((await callApi(app, 'GET', '/v1/account', { key })).status, 200);
  // Written off the request's path, so it lands shortly after the response.
  const recorded = await recordedUse(id);
  const after = Date.now();
  t.regex(recorded, /Z$/);
  // The time of this use: between the request and our reading it (one clock, the machine's; 1 s for rounding).
  t.true(Date.parse(recorded) >= before - 1000 && Date.parse(recorded) <= after + 1000, recorded);
  const listed = await callApi(app, 'GET', '/v1/api-keys', { key });
  t.is(listed.body[0].last_used_at, recorded);
});

test('last_used_at is written at most once a minute per key', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key, id } = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'GET', '/v1/account', { key })).status, 200);
  const first = await recordedUse(id);
  for (let index = 0; index < 5; index += 1) {
    t.is((await callApi(app, 'GET', '/v1/account', { key })).status, 200);
  }
  // A key first used after those requests has its use recorded: a write of theirs would have landed too.
  const witness = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'GET', '/v1/account', { key: witness.key })).status, 200);
  await recordedUse(witness.id);
  t.is(await lastUsedAt(id), first);
});

test('failed authentication does not record a use', async (t) => {
  const account = await buildAccount(app.services.pool, { is_active: false });
  const { key, id } = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'GET', '/v1/account', { key })).status, 403);
  // A successful use after it is recorded: a write for the refused one would have landed by then.
  const active = await buildAccount(app.services.pool);
  const witness = await buildApiKey(app.services.pool, active.id);
  t.is((await callApi(app, 'GET', '/v1/account', { key: witness.key })).status, 200);
  await recordedUse(witness.id);
  t.is(await lastUsedAt(id), null);
});
