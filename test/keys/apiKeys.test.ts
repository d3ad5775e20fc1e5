import test from 'ava';
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

const LISTED_FIELDS = ['created_at', 'expires_at', 'id', 'is_active', 'key_prefix', 'last_used_at', 'name', 'revoked_at'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const caller = async (plan = 'pro') => {
  const account = await buildAccount(app.services.pool, { plan });
  const key = await buildApiKey(app.services.pool, account.id, { name: 'caller' });
  return { account, key };
};

test('POST /v1/api-keys answers 201 with exactly the created form and a key that works', async (t) => {
  const { key } = await caller();
  const response = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'ci' } });
  t.is(response.status, 201);
  t.is(response.headers.get('cache-control'), 'no-store');
  t.deepEqual(Object.keys(response.body).sort(), ['created_at', 'id', 'key', 'key_prefix', 'name']);
  t.regex(response.body.id, UUID);
  t.is(response.body.name, 'ci');
  t.regex(response.body.key, /^bs_live_[A-Za-z0-9]{32}$/);
  t.is(response.body.key_prefix, response.body.key.slice(0, 12));
  t.regex(response.body.created_at, ISO);
  const used = await callApi(app, 'GET', '/v1/account', { key: response.body.key });
  t.is(used.status, 200);
});

test('the name is trimmed, and 100 characters after trimming are accepted', async (t) => {
  const { key } = await caller('enterprise');
  const trimmed = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: '  deploy bot \n' } });
  t.is(trimmed.status, 201);
  t.is(trimmed.body.name, 'deploy bot');
  const longest = `  ${'n'.repeat(100)}  `;
  const response = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: longest } });
  t.is(response.status, 201);
  t.is(response.body.name, 'n'.repeat(100));
  // Characters, not UTF-16 units: 100 emoji are 100 characters.
  const emoji = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: '🔑'.repeat(100) } });
  t.is(emoji.status, 201);
  t.is(emoji.body.name, '🔑'.repeat(100));
});

test('a bad body answers 422 validation_failed with the issues', async (t) => {
  const { key } = await caller();
  const cases: ReadonlyArray<readonly [unknown, string]> = [
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: '🔑'.repeat(101) }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: null }, 'name'],
    [{ name: 'a\u0000b' }, 'name'],
    [{}, 'name'],
    [{ name: 'ok', scopes: ['all'] }, 'scopes'],
    [['ok'], ''],
    ['ok', ''],
  ];
  for (const [body, path] of cases) {
    const response = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: JSON.stringify(body) });
    t.is(response.status, 422, JSON.stringify(body));
    t.is(response.body.error.details.code, 'validation_failed');
    t.true(response.body.error.details.issues.some((issue: { path: string }) => issue.path === path), JSON.stringify(response.body.error.details.issues));
  }
  const empty = await callApi(app, 'POST', '/v1/api-keys', { key: key.key });
  t.is(empty.status, 422);
  t.is(empty.body.error.details.code, 'validation_failed');
  const listed = await callApi(app, 'GET', '/v1/api-keys', { key: key.key });
  t.is(listed.body.length, 1);
});

test('body parsing errors: 400 invalid_json, 415 unsupported_media_type, 413 payload_too_large', async (t) => {
  const { key } = await caller();
  const broken = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: '{"name":' });
  t.is(broken.status, 400);
  t.is(broken.body.error.details.code, 'invalid_json');
  const text = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: 'name=x', headers: { 'Content-Type': 'text/plain' } });
  t.is(text.status, 415);
  t.is(text.body.error.details.code, 'unsupported_media_type');
  const huge = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'x'.repeat(17 * 1024) } });
  t.is(huge.status, 413);
  t.is(huge.body.error.details.code, 'payload_too_large');
});

test('GET /v1/api-keys lists the caller’s keys newest first, active and revoked, metadata only', async (t) => {
  const { key } = await caller();
  const other = await caller();
  const created = [];
  for (const name of ['one', 'two', 'three']) {
    const response = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name } });
    t.is(response.status, 201);
    created.push(response.body);
  }
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${created[1].id}`, { key: key.key })).status, 200);
  const response = await callApi(app, 'GET', '/v1/api-keys', { key: key.key });
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  t.deepEqual(
    response.body.map((listed: { name: string }) => listed.name),
    ['three', 'two', 'one', 'caller'],
  );
  for (const listed of response.body) {
    t.deepEqual(Object.keys(listed).sort(), LISTED_FIELDS);
    t.regex(listed.key_prefix, /^bs_live_[A-Za-z0-9]{4}$/);
    t.regex(listed.created_at, ISO);
  }
  const [three, two, one] = response.body;
  t.is(three.id, created[2].id);
  t.is(three.key_prefix, created[2].key_prefix);
  t.is(three.is_active, true);
  t.is(three.revoked_at, null);
  t.is(three.last_used_at, null);
  t.is(two.is_active, false);
  t.regex(two.revoked_at, ISO);
  t.is(one.is_active, true);
  t.false(JSON.stringify(response.body).includes(created[0].key));
  t.false(response.body.some((listed: { id: string }) => listed.id === other.key.id));
});

test('a free account holding its one active key gets 403 api_key_limit_reached with the limit', async (t) => {
  const { key } = await caller('free');
  const response = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'second' } });
  t.is(response.status, 403);
  t.is(response.body.error.details.code, 'api_key_limit_reached');
  t.is(response.body.error.details.limit, 1);
  t.is((await callApi(app, 'GET', '/v1/api-keys', { key: key.key })).body.length, 1);
});

test('revoked keys do not count against the active-key limit', async (t) => {
  const { key } = await caller('pro');
  const made = [];
  for (let index = 0; index < 4; index += 1) {
    made.push((await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: `k${index}` } })).body);
  }
  const refused = await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'sixth' } });
  t.is(refused.status, 403);
  t.is(refused.body.error.details.limit, 5);
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${made[0].id}`, { key: key.key })).status, 200);
  t.is((await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'sixth' } })).status, 201);
});

test('DELETE /v1/api-keys/{id} answers 200 {status:"revoked", id}, and again the same (idempotent)', async (t) => {
  const { key } = await caller();
  const target = (await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'doomed' } })).body;
  const first = await callApi(app, 'DELETE', `/v1/api-keys/${target.id}`, { key: key.key });
  t.is(first.status, 200);
  t.is(first.headers.get('cache-control'), 'no-store');
  t.deepEqual(first.body, { status: 'revoked', id: target.id });
  const revokedAt = (await callApi(app, 'GET', '/v1/api-keys', { key: key.key })).body[0].revoked_at;
  t.regex(revokedAt, ISO);
  const second = await callApi(app, 'DELETE', `/v1/api-keys/${target.id}`, { key: key.key });
  t.is(second.status, 200);
  t.deepEqual(second.body, { status: 'revoked', id: target.id });
  const after = (await callApi(app, 'GET', '/v1/api-keys', { key: key.key })).body[0];
  t.is(after.revoked_at, revokedAt);
  t.is(after.is_active, false);
});

test("another account's key, an unknown id and a malformed id all answer 404 api_key_not_found", async (t) => {
  const { key } = await caller();
  const other = await caller();
  const ids = [other.key.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', '12345', `${other.key.id}0`, "'; DROP TABLE api_keys; --"];
  for (const id of ids) {
    const response = await callApi(app, 'DELETE', `/v1/api-keys/${encodeURIComponent(id)}`, { key: key.key });
    t.is(response.status, 404, id);
    t.is(response.body.error.details.code, 'api_key_not_found');
  }
  // The other account's key was left alone.
  t.is((await callApi(app, 'GET', '/v1/account', { key: other.key.key })).status, 200);
});

test('a revoked key stays revoked: a new key of the same name is a different key', async (t) => {
  const { key } = await caller();
  const target = (await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'same' } })).body;
  await callApi(app, 'DELETE', `/v1/api-keys/${target.id}`, { key: key.key });
  const again = (await callApi(app, 'POST', '/v1/api-keys', { key: key.key, body: { name: 'same' } })).body;
  t.not(again.id, target.id);
  t.not(again.key, target.key);
  t.is((await callApi(app, 'GET', '/v1/account', { key: target.key })).status, 401);
});
