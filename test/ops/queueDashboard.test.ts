import test from 'ava';
import { SIMULATION_JOB_NAME } from '../../shared/jobs/simulationJob.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let app: TestApp;

test.before(async () => {
  app = await startTestApp({ env: { ADMIN_TOKEN } });
});

test.after.always(async () => {
  await app?.close();
});

test('without credentials the dashboard answers 401 in the error envelope with a Basic challenge a browser can answer', async (t) => {
  for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/images/logo.svg']) {
    const response = await fetch(`${app.url}${path}`);
    t.is(response.status, 401, path);
    t.regex(response.headers.get('www-authenticate') ?? '', /^Basic realm="queue dashboard"/);
    const body = (await response.json()) as { error: { message: string; details: { code: string }; request_id: string } };
    t.is(body.error.details.code, 'authentication_required');
    t.regex(body.error.message, /operator token/);
    t.notRegex(body.error.message, /API key|sign in/);
    t.is(body.error.request_id, response.headers.get('x-request-id') ?? 'missing header');
  }
});

test('a wrong token, as Bearer or as the Basic password, is 401 invalid_credentials', async (t) => {
  for (const authorization of ['Bearer nope', basic('admin', 'nope'), basic(ADMIN_TOKEN, ''), `Bearer ${ADMIN_TOKEN}x`]) {
    const response = await fetch(`${app.url}/admin/queues/api/queues`, { headers: { Authorization: authorization } });
    t.is(response.status, 401, authorization);
    t.is(((await response.json()) as { error: { details: { code: string } } }).error.details.code, 'invalid_credentials');
  }
});

test.serial('with the token the dashboard page, its assets and its API are served, showing the simulation queue', async (t) => {
  const { queue } = app.services.simulations;
  await queue.add(SIMULATION_JOB_NAME, { dashboard: true }, { jobId: 'dashboard-waiting' });
  t.teardown(() => queue.remove('dashboard-waiting'));

  const page = await fetch(`${app.url}/admin/queues`, { headers: { Authorization: basic('operator', ADMIN_TOKEN) } });
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  t.true(html.includes('<base href="/admin/queues/"'), 'relative asset URLs resolve under the dashboard path');
  const asset = /src="(static\/js\/main\.[^"]+\.js)"/.exec(html)?.[1];
  t.truthy(asset);

  const script = await fetch(`${app.url}/admin/queues/${asset}`, { headers: { Authorization: basic('', ADMIN_TOKEN) } });
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type') ?? '', /javascript/);
  await script.arrayBuffer();

  const api = await fetch(`${app.url}/admin/queues/api/queues`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.is(api.status, 200);
  const body = (await api.json()) as { queues: { name: string; counts: Record<string, number> }[] };
  const simulations = body.queues.find((entry) => entry.name === 'simulations');
  t.truthy(simulations);
  t.is(simulations?.counts.waiting, 1);
});

test('without ADMIN_TOKEN the dashboard does not exist: 404 not_found, whatever the credentials', async (t) => {
  const bare = await startTestApp({ database: app.database });
  t.teardown(() => bare.close());
  for (const headers of [{}, { Authorization: `Bearer ${ADMIN_TOKEN}` }]) {
    const response = await fetch(`${bare.url}/admin/queues`, { headers });
    t.is(response.status, 404);
    t.is(((await response.json()) as { error: { details: { code: string } } }).error.details.code, 'not_found');
  }
});

test.serial('a dashboard action sent with browser (Basic) credentials must come from the service\'s own origin', async (t) => {
  const { queue } = app.services.simulations;
  await queue.pause();
  t.teardown(() => queue.resume());
  const resume = (headers: Record<string, string>): Promise<Response> =>
    fetch(`${app.url}/admin/queues/api/queues/simulations/resume`, { method: 'PUT', headers });
  const crossSite = await resume({ Authorization: basic('operator', ADMIN_TOKEN), Origin: 'https://evil.example' });
  t.is(crossSite.status, 403);
  t.is(((await crossSite.json()) as { error: { details: { code: string } } }).error.details.code, 'csrf_rejected');
  t.true(await queue.isPaused());

  const ownPage = await resume({ Authorization: basic('operator', ADMIN_TOKEN), Origin: app.services.config.publicOrigin });
  t.is(ownPage.status, 200);
  await ownPage.arrayBuffer();
  t.false(await queue.isPaused());

  await queue.pause();
  const script = await resume({ Authorization: `Bearer ${ADMIN_TOKEN}` });
  t.is(script.status, 200);
  await script.arrayBuffer();
  t.false(await queue.isPaused());
});
