import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { sendRaw } from '../helpers/rawHttp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

// docs/fair-use.md#security-headers: every response carries X-Content-Type-Options: nosniff; the queue
// dashboard also X-Frame-Options: DENY and a CSP with frame-ancestors 'none'.
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-for-tests-0123456789abcdef';
let app: TestApp;

test.before(async () => {
  app = await startTestApp({
    env: {
      ADMIN_TOKEN,
      METRICS_TOKEN,
      OAUTH_GITHUB_CLIENT_ID: 'client',
      OAUTH_GITHUB_CLIENT_SECRET: 'secret',
    },
  });
});

test.after.always(async () => {
  await app?.close();
});

test('every kind of response carries X-Content-Type-Options: nosniff', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const bearer = { Authorization: `Bearer ${caller.key}` };
  const requests: { readonly path: string; readonly init?: RequestInit; readonly status?: number }[] = [
    { path: '/health', status: 200 },
    { path: '/ready' },
    { path: '/v1/presets', status: 200 },
    { path: '/v1/presets/nothing', status: 404 },
    { path: '/no/such/route', status: 404 },
    { path: '/health', init: { method: 'DELETE' }, status: 405 },
    { path: '/v1/account', status: 401 },
    { path: '/v1/account', init: { headers: bearer }, status: 200 },
    { path: '/v1/simulations', init: { method: 'POST', headers: { ...bearer, 'Content-Type': 'application/json' }, body: '{' }, status: 400 },
    { path: '/v1/simulations', init: { method: 'POST', headers: { ...bearer, 'Content-Type': 'text/plain' }, body: 'x' }, status: 415 },
    { path: '/v1/auth/github', init: { redirect: 'manual' }, status: 302 },
    { path: '/v1/auth/github/callback?state=forged&code=x', init: { redirect: 'manual' }, status: 302 },
    { path: '/openapi.json', status: 200 },
    { path: '/docs', status: 200 },
    { path: '/docs/docs.css', status: 200 },
    { path: '/', status: 200 },
    { path: '/account', status: 200 },
    { path: '/metrics', status: 401 },
    { path: '/metrics', init: { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } }, status: 200 },
    { path: '/admin/queues', status: 401 },
    { path: '/admin/queues', init: { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }, status: 200 },
    { path: '/admin/queues/api/queues', init: { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }, status: 200 },
    { path: '/admin/queues/static/images/logo.svg', init: { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }, status: 200 },
  ];
  for (const request of requests) {
    const response = await fetch(`${app.url}${request.path}`, request.init);
    await response.arrayBuffer();
    const label = `${request.init?.method ?? 'GET'} ${request.path} → ${response.status}`;
    if (request.status !== undefined) {
      t.is(response.status, request.status, label);
    }
    t.is(response.headers.get('x-content-type-options'), 'nosniff', label);
  }
  // A request Node's parser refuses never reaches the app, and is answered with the header all the same.
  const refused = await sendRaw(app.url, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
  t.is(refused.status, 400);
  t.is(refused.headers['x-content-type-options'], 'nosniff');
});

test('the queue dashboard may not be framed: X-Frame-Options DENY and frame-ancestors none, on its pages, assets, API and challenge', async (t) => {
  for (const [path, headers] of [
    ['/admin/queues', {}],
    ['/admin/queues', { Authorization: `Bearer ${ADMIN_TOKEN}` }],
    ['/admin/queues/api/queues', { Authorization: `Bearer ${ADMIN_TOKEN}` }],
    ['/admin/queues/static/images/logo.svg', { Authorization: `Bearer ${ADMIN_TOKEN}` }],
  ] as const) {
    const response = await fetch(`${app.url}${path}`, { headers });
    await response.arrayBuffer();
    t.is(response.headers.get('x-frame-options'), 'DENY', path);
    t.regex(response.headers.get('content-security-policy') ?? '', /(^|;\s*)frame-ancestors 'none'(;|$)/, path);
  }
});
