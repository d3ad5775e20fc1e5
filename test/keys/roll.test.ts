import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { callApi } from './callApi.ts';

// The domain clock: expiry is judged by it, so a test crosses a grace period without waiting for it.
let clock = new Date('2026-11-15T12:00:00.000Z');
let app: TestApp;

test.before(async () => {
  app = await startTestApp({ now: () => clock });
});

test.after.always(async () => {
  await app?.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const freeCaller = async () => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const key = await buildApiKey(app.services.pool, account.id, { name: 'deploy' });
  return { account, key };
};

const listed = async (key: string, id: string) => {
  const response = await callApi(app, 'GET', '/v1/api-keys', { key });
  return response.body.find((item: { id: string }) => item.id === id);
};

test.serial('a roll answers 201 with the new key of the same name; the old key works until previous_key_expires_at, then fails like a revoked key', async (t) => {
  const { key } = await freeCaller();
  const start = clock;
  t.teardown(() => {
    clock = start;
  });
  const rolled = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key, body: { expires_in: 60 } });
  t.is(rolled.status, 201);
  t.is(rolled.headers.get('cache-control'), 'no-store');
  t.deepEqual(Object.keys(rolled.body).sort(), ['created_at', 'id', 'key', 'key_prefix', 'name', 'previous_key_expires_at']);
  t.is(rolled.body.name, 'deploy');
  t.regex(rolled.body.key, /^bs_live_[A-Za-z0-9]{32}$/);
  t.is(rolled.body.key_prefix, rolled.body.key.slice(0, 12));
  t.regex(rolled.body.created_at, ISO);
  t.is(rolled.body.previous_key_expires_at, new Date(start.getTime() + 60_000).toISOString());

  const old = await listed(rolled.body.key, key.id);
  t.like(old, { is_active: true, revoked_at: null, expires_at: rolled.body.previous_key_expires_at });
  t.like(await listed(rolled.body.key, rolled.body.id), { is_active: true, revoked_at: null, expires_at: null });

  clock = new Date(start.getTime() + 59_999);
  t.is((await callApi(app, 'GET', '/v1/account', { key: key.key })).status, 200);
  clock = new Date(start.getTime() + 60_000);
  const expired = await callApi(app, 'GET', '/v1/account', { key: key.key });
  t.is(expired.status, 401);
  t.is(expired.body.error.details.code, 'invalid_credentials');
  t.is((await callApi(app, 'GET', '/v1/account', { key: rolled.body.key })).status, 200);
  t.like(await listed(rolled.body.key, key.id), {
    is_active: false,
    revoked_at: rolled.body.previous_key_expires_at,
    expires_at: rolled.body.previous_key_expires_at,
  });
});

test('without a body the grace period is 86400 s', async (t) => {
  const { key } = await freeCaller();
  const rolled = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key });
  t.is(rolled.status, 201);
  t.is(rolled.body.previous_key_expires_at, new Date(clock.getTime() + 86_400_000).toISOString());
});

test('expires_in 0 revokes the old key at once, listed revoked at its expires_at', async (t) => {
  const { key } = await freeCaller();
  const rolled = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key, body: { expires_in: 0 } });
  t.is(rolled.status, 201);
  const refused = await callApi(app, 'GET', '/v1/account', { key: key.key });
  t.is(refused.status, 401);
  t.is(refused.body.error.details.code, 'invalid_credentials');
  const old = await listed(rolled.body.key, key.id);
  t.like(old, { is_active: false, revoked_at: rolled.body.previous_key_expires_at, expires_at: rolled.body.previous_key_expires_at });
});

test('a roll does not count against the active-key limit: a free account can roll its one key, still not add one', async (t) => {
  const { key } = await freeCaller();
  const rolled = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key });
  t.is(rolled.status, 201);
  const extra = await callApi(app, 'POST', '/v1/api-keys', { key: rolled.body.key, body: { name: 'extra' } });
  t.is(extra.status, 403);
  t.is(extra.body.error.details.code, 'api_key_limit_reached');
  // The new key can itself be rolled, but not with a grace period while the first one's runs: that would
  // leave three working keys, one more than the plan's limit plus one. Revoking the old key at once adds none.
  const third = await callApi(app, 'POST', `/v1/api-keys/${rolled.body.id}/roll`, { key: rolled.body.key });
  t.is(third.status, 409);
  t.like(third.body.error.details, { code: 'api_key_not_rollable', limit: 2 });
  t.is((await callApi(app, 'POST', `/v1/api-keys/${rolled.body.id}/roll`, { key: rolled.body.key, body: { expires_in: 0 } })).status, 201);
});

test('rolling a key already rolled or revoked answers 409 api_key_not_rollable', async (t) => {
  const { account, key } = await freeCaller();
  const rolled = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key });
  t.is(rolled.status, 201);
  const twice = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: rolled.body.key });
  t.is(twice.status, 409);
  t.is(twice.body.error.details.code, 'api_key_not_rollable');
  const spare = await buildApiKey(app.services.pool, account.id);
  t.is((await callApi(app, 'DELETE', `/v1/api-keys/${spare.id}`, { key: rolled.body.key })).status, 200);
  const revoked = await callApi(app, 'POST', `/v1/api-keys/${spare.id}/roll`, { key: rolled.body.key });
  t.is(revoked.status, 409);
  t.is(revoked.body.error.details.code, 'api_key_not_rollable');
});

test('two simultaneous rolls of one key: one 201, one 409', async (t) => {
  const { key } = await freeCaller();
  const responses = await Promise.all([0, 1].map(() => callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key, body: { expires_in: 30 } })));
  t.deepEqual(responses.map((response) => response.status).sort(), [201, 409]);
  const list = await callApi(app, 'GET', '/v1/api-keys', { key: key.key });
  t.is(list.body.length, 2);
});

test("an unknown, malformed or another account's key id answers 404 api_key_not_found", async (t) => {
  const { key } = await freeCaller();
  const other = await freeCaller();
  for (const id of ['7d3f5a0e-1111-4222-8333-944455556666', 'not-a-uuid', other.key.id]) {
    const response = await callApi(app, 'POST', `/v1/api-keys/${id}/roll`, { key: key.key });
    t.is(response.status, 404, id);
    t.is(response.body.error.details.code, 'api_key_not_found');
  }
  t.is((await callApi(app, 'GET', '/v1/account', { key: other.key.key })).status, 200);
});

test('a bad expires_in answers 422 validation_failed and rolls nothing', async (t) => {
  const { key } = await freeCaller();
  for (const body of [{ expires_in: -1 }, { expires_in: 604_801 }, { expires_in: 1.5 }, { expires_in: '60' }, { expires_in: 60, extra: true }]) {
    const response = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key, body });
    t.is(response.status, 422, JSON.stringify(body));
    t.is(response.body.error.details.code, 'validation_failed');
  }
  t.is((await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`, { key: key.key, body: { expires_in: 604_800 } })).status, 201);
});

test('a roll without credentials answers 401', async (t) => {
  const { key } = await freeCaller();
  const response = await callApi(app, 'POST', `/v1/api-keys/${key.id}/roll`);
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'authentication_required');
});

// With the principal cache (h12 merged): POST /v1/simulations answers a known key from the process's
// cache; a roll must reach it (the expiry judged per request, expires_in 0 at once). A body that fails
// validation answers 422 only once the key was accepted, so no worker is needed to tell the two apart.
test.serial('a key cached by POST /v1/simulations fails there once its grace period ends, and at once after a roll with expires_in 0', async (t) => {
  const start = clock;
  t.teardown(() => {
    clock = start;
  });
  const accepted = async (key: string): Promise<number> => (await callApi(app, 'POST', '/v1/simulations', { key, body: {} })).status;

  const graceful = await freeCaller();
  t.is(await accepted(graceful.key.key), 422);
  const rolled = await callApi(app, 'POST', `/v1/api-keys/${graceful.key.id}/roll`, { key: graceful.key.key, body: { expires_in: 60 } });
  t.is(rolled.status, 201);
  clock = new Date(start.getTime() + 59_999);
  t.is(await accepted(graceful.key.key), 422);
  clock = new Date(start.getTime() + 60_000);
  t.is(await accepted(graceful.key.key), 401);
  t.is(await accepted(rolled.body.key), 422);

  clock = start;
  const immediate = await freeCaller();
  t.is(await accepted(immediate.key.key), 422);
  const revoked = await callApi(app, 'POST', `/v1/api-keys/${immediate.key.id}/roll`, { key: immediate.key.key, body: { expires_in: 0 } });
  t.is(revoked.status, 201);
  t.is(await accepted(immediate.key.key), 401);
  t.is(await accepted(revoked.body.key), 422);
});
