import test from 'ava';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { signIn, signInEnv, TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestIdp, type TestIdp } from '../helpers/startTestIdp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { browserRequest, someone } from './authFixtures.ts';

let idp: TestIdp;
let app: TestApp;
let worker: SimulationWorker;

test.before(async () => {
  idp = await startTestIdp();
  app = await startTestApp({ env: signInEnv(idp) });
  worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1 });
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
  await idp?.stop();
});

test('a signed-in browser user creates, lists and revokes a key, runs a simulation and signs out', async (t) => {
  const login = await signIn(app, idp, 'google', someone());
  const cookie = login.sessionCookie;
  t.truthy(cookie);
  // What the browser's fetch sends from a page of the service itself.
  const own = { cookie, origin: TEST_PUBLIC_URL };

  const created = await browserRequest(app, 'POST', '/v1/api-keys', { ...own, body: { name: 'laptop' } });
  t.is(created.status, 201);
  t.regex(created.body.key, /^bs_live_[A-Za-z0-9]{32}$/);

  const listed = await browserRequest(app, 'GET', '/v1/api-keys', { cookie });
  t.is(listed.status, 200);
  t.deepEqual(
    listed.body.map((key: { id: string; is_active: boolean }) => [key.id, key.is_active]),
    [[created.body.id, true]],
  );

  const simulation = await browserRequest(app, 'POST', '/v1/simulations', { ...own, body: { preset: 'education', num_interactions: 25, seed: 11 } });
  t.is(simulation.status, 200, JSON.stringify(simulation.body));
  t.is(simulation.body.preset, 'education');
  t.is(simulation.body.data.length, 25);

  const revoked = await browserRequest(app, 'DELETE', `/v1/api-keys/${created.body.id}`, own);
  t.is(revoked.status, 200);
  t.deepEqual(revoked.body, { status: 'revoked', id: created.body.id });
  const afterRevoke = await browserRequest(app, 'GET', '/v1/account', { headers: { Authorization: `Bearer ${created.body.key}` } });
  t.is(afterRevoke.status, 401);

  const loggedOut = await browserRequest(app, 'POST', '/v1/auth/logout', own);
  t.is(loggedOut.status, 200);
  const afterLogout = await browserRequest(app, 'GET', '/v1/api-keys', { cookie });
  t.is(afterLogout.status, 401);
  t.is(afterLogout.body.error.details.code, 'invalid_credentials');
});

test('a signed-in browser user reads usage that counts the session\'s and the keys\' simulations together', async (t) => {
  const login = await signIn(app, idp, 'github', someone());
  const own = { cookie: login.sessionCookie, origin: TEST_PUBLIC_URL };
  const created = await browserRequest(app, 'POST', '/v1/api-keys', { ...own, body: { name: 'script' } });
  const viaSession = await browserRequest(app, 'POST', '/v1/simulations', { ...own, body: { preset: 'finance', num_interactions: 10, seed: 3 } });
  t.is(viaSession.status, 200, JSON.stringify(viaSession.body));
  const viaKey = await browserRequest(app, 'POST', '/v1/simulations', {
    headers: { Authorization: `Bearer ${created.body.key}` },
    body: { preset: 'finance', num_interactions: 15, seed: 4 },
  });
  t.is(viaKey.status, 200, JSON.stringify(viaKey.body));
  const usage = await browserRequest(app, 'GET', '/v1/usage', { cookie: login.sessionCookie });
  t.is(usage.status, 200, JSON.stringify(usage.body));
  t.is(usage.body.plan.name, 'free');
  t.deepEqual(usage.body.usage, { requests: 2, interactions: 25 });
  t.deepEqual(usage.body.remaining, { requests: 98, interactions: 9975 });
});
