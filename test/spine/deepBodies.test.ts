import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { callApi } from '../keys/callApi.ts';

// docs/fair-use.md#request-bodies: JSON nested deeper than 32 levels is 400 invalid_json on every
// route that reads a JSON body, and nothing a body holds makes a 5xx. No worker: every request here is
// decided before a run would start.
let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

/** `levels` nested arrays around a number: `[[1]]` is 2 levels. */
const nestedArrays = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
/** `levels` nested objects, the outermost a body's own. */
const nestedObjects = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

const JSON_BODY_ROUTES = (keyId: string) => [
  { method: 'POST', path: '/v1/simulations' },
  { method: 'POST', path: '/v1/api-keys' },
  { method: 'POST', path: `/v1/api-keys/${keyId}/roll` },
];

test('a body nested 33 levels deep answers 400 invalid_json on every route that reads JSON, with or without an Idempotency-Key', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const keyId = (await callApi(app, 'GET', '/v1/api-keys', { key: caller.key })).body[0].id as string;
  for (const route of JSON_BODY_ROUTES(keyId)) {
    for (const body of [nestedArrays(33), nestedObjects(33), `{"name":${nestedArrays(32)}}`, nestedArrays(4000), nestedObjects(2000)]) {
      for (const headers of [{}, { 'Idempotency-Key': `deep-${body.length}` }] as Record<string, string>[]) {
        const response = await callApi(app, route.method, route.path, { key: caller.key, body, headers });
        const label = `${route.path} ${body.slice(0, 12)}… (${body.length} bytes) ${JSON.stringify(headers)}`;
        t.is(response.status, 400, label);
        t.is(response.body.error.details.code, 'invalid_json', label);
        t.is(response.body.error.request_id, response.headers.get('x-request-id'), label);
      }
    }
  }
  t.false(app.logs().includes('Maximum call stack'), 'no stack overflow anywhere');
  t.false(app.logs().includes('"level":50'), 'no error logged');
});

test('32 levels are accepted as JSON, and brackets inside strings do not count', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const keyId = (await callApi(app, 'GET', '/v1/api-keys', { key: caller.key })).body[0].id as string;
  const bracketsInStrings = JSON.stringify({ name: `${'['.repeat(5000)}\\"{{{${'{'.repeat(5000)}` });
  for (const route of JSON_BODY_ROUTES(keyId)) {
    // Parsed, then judged by the route's schema: 422, never 400.
    for (const body of [nestedArrays(32), nestedObjects(32), bracketsInStrings]) {
      const response = await callApi(app, route.method, route.path, { key: caller.key, body, headers: { 'Idempotency-Key': `ok-${body.length}` } });
      t.is(response.status, 422, `${route.path} ${body.slice(0, 12)}`);
      t.is(response.body.error.details.code, 'validation_failed');
    }
  }
  // A name of brackets is a name: escaped quotes and brackets inside it do not end or open anything.
  const created = await callApi(app, 'POST', '/v1/api-keys', { key: caller.key, body: { name: `[{"\\" ]]]}}}` } });
  t.is(created.status, 201);
  t.is(created.body.name, `[{"\\" ]]]}}}`);
});

test('on POST /v1/simulations a too-deep body is counted by the rate limiter before it is refused, as any body refusal', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 3 });
  for (const remaining of [2, 1, 0]) {
    const response = await callApi(app, 'POST', '/v1/simulations', {
      key: caller.key,
      body: nestedArrays(4000),
      headers: { 'Idempotency-Key': 'deep-and-counted' },
    });
    t.is(response.status, 400);
    t.is(response.body.error.details.code, 'invalid_json');
    t.regex(response.headers.get('ratelimit') ?? '', new RegExp(`^"rpm";r=${remaining};t=\\d+$`));
  }
  const limited = await callApi(app, 'POST', '/v1/simulations', { key: caller.key, body: nestedArrays(4000), headers: { 'Idempotency-Key': 'deep-and-counted' } });
  t.is(limited.status, 429);
  t.is(limited.body.error.details.code, 'rate_limit_exceeded');
  t.is(Number(limited.headers.get('retry-after')), limited.body.error.details.retry_after);
});

test('odd but parseable bodies answer 4xx, never 5xx', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const keyId = (await callApi(app, 'GET', '/v1/api-keys', { key: caller.key })).body[0].id as string;
  const bodies = [
    '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}',
    '{"preset":"finance","num_interactions":1e400}',
    '{"preset":"finance","num_interactions":-0,"seed":1.0e-400}',
    '{"name":"\\ud800","expires_in":9007199254740993}',
    '{"name":"a\\u0000b"}',
    `{"preset":"finance","num_interactions":5,"scenario":{"events":[${Array.from({ length: 200 }, () => '{"type":"rally","at_step":1}').join(',')}]}}`,
    '"just a string"',
    'null',
    '[]',
    `{${Array.from({ length: 800 }, (_, index) => `"k${index}":[]`).join(',')}}`,
  ];
  for (const route of JSON_BODY_ROUTES(keyId)) {
    for (const body of bodies) {
      for (const headers of [{}, { 'Idempotency-Key': `odd-${route.path.length}-${body.length}` }] as Record<string, string>[]) {
        const response = await callApi(app, route.method, route.path, { key: caller.key, body, headers });
        t.true(response.status >= 400 && response.status < 500, `${route.path} ${body.slice(0, 40)} → ${response.status}`);
      }
    }
  }
});

test("the queue dashboard's JSON actions are held to the same depth before its own parser sees them", async (t) => {
  const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
  const admin = await startTestApp({ database: app.database, env: { ADMIN_TOKEN } });
  t.teardown(() => admin.close());
  const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };
  const deep = await fetch(`${admin.url}/admin/queues/api/queues/simulations/add`, { method: 'POST', headers, body: nestedObjects(33) });
  t.is(deep.status, 400);
  t.is(((await deep.json()) as { error: { details: { code: string } } }).error.details.code, 'invalid_json');
  // A shallow action still reaches the dashboard.
  const shallow = await fetch(`${admin.url}/admin/queues/api/queues/simulations/pause`, { method: 'PUT', headers, body: '{}' });
  t.true(shallow.status < 300, String(shallow.status));
  const resumed = await fetch(`${admin.url}/admin/queues/api/queues/simulations/resume`, { method: 'PUT', headers, body: '{}' });
  t.true(resumed.status < 300, String(resumed.status));
});
