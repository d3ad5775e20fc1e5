import test from 'ava';
import { API_VERSION } from '../../shared/version.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTcpProxy } from '../helpers/startTcpProxy.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

test('GET /health answers 200 {status:"ok", version} with the API version', async (t) => {
  const response = await fetch(`${app.url}/health`);
  t.is(response.status, 200);
  t.deepEqual(await response.json(), { status: 'ok', version: API_VERSION });
  t.regex(API_VERSION, /^\d+\.\d+\.\d+$/);
});

test('GET /ready answers 200 ready with database and redis connected', async (t) => {
  const response = await fetch(`${app.url}/ready`);
  t.is(response.status, 200);
  t.deepEqual(await response.json(), { status: 'ready', database: 'connected', redis: 'connected', version: API_VERSION });
});

test.serial('GET /ready answers 503 not_ready while the process drains for shutdown', async (t) => {
  app.services.lifecycle.draining = true;
  try {
    const response = await fetch(`${app.url}/ready`);
    t.is(response.status, 503);
    t.like(await response.json(), { status: 'not_ready', database: 'connected', redis: 'connected' });
  } finally {
    app.services.lifecycle.draining = false;
  }
});

test('GET /ready answers 503 with database disconnected when PostgreSQL becomes unreachable, and /health stays 200', async (t) => {
  const proxy = await startTcpProxy(Number(new URL(app.database.url).port || 5432));
  const viaProxy = new URL(app.database.url);
  viaProxy.port = String(proxy.port);
  const broken = await startTestApp({ database: app.database, env: { DATABASE_URL: viaProxy.toString() } });
  t.teardown(() => broken.close());
  t.is((await fetch(`${broken.url}/ready`)).status, 200);
  await proxy.cut();
  // With the link cut the database never answers: only the check's own timeout can produce this 503.
  const response = await fetch(`${broken.url}/ready`);
  t.is(response.status, 503);
  t.deepEqual(await response.json(), { status: 'not_ready', database: 'disconnected', redis: 'connected', version: API_VERSION });
  t.is((await fetch(`${broken.url}/health`)).status, 200);
});

test('GET /ready answers 503 with redis disconnected when Redis becomes unreachable', async (t) => {
  const proxy = await startTcpProxy(6379);
  const broken = await startTestApp({ database: app.database, env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  t.teardown(() => broken.close());
  t.is((await fetch(`${broken.url}/ready`)).status, 200);
  await proxy.cut();
  const response = await fetch(`${broken.url}/ready`);
  t.is(response.status, 503);
  t.deepEqual(await response.json(), { status: 'not_ready', database: 'connected', redis: 'disconnected', version: API_VERSION });
  // The outage is in the logs too (once per connection and 10 s, not once per reconnect attempt).
  const logged = await eventually(() => broken.logs().split('\n').find((line) => line.includes('"msg":"redis connection error"')));
  t.regex(logged, /"level":40/);
  t.regex(logged, /"redis_role":"(api:limits|api:queue|api:replies|api:streams)"/);
});
