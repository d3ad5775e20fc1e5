import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import test from 'ava';
import { buildApp } from '../../api/app.ts';
import { buildOpenApiDocument } from '../../api/openapi/buildOpenApiDocument.ts';
import { OPERATIONS, type OperationSpec, UNDOCUMENTED_ROUTES } from '../../api/openapi/operations.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { registeredRoutes } from './documentedRoutes.ts';
import { tinyModel } from '../models/modelFixtures.ts';

let app: TestApp;
let worker: SimulationWorker;
let document: Record<string, any>;
// Formats are checked by the patterns zod emits beside them (uuid, date-time).
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

test.before(async () => {
  app = await startTestApp({ env: { ADMIN_TOKEN: 'admin-token-for-openapi-tests-0123', METRICS_TOKEN: 'metrics-token-for-openapi-tests-01' } });
  worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  const response = await fetch(`${app.url}/openapi.json`);
  document = (await response.json()) as Record<string, any>;
  ajv.addSchema(document, 'openapi.json');
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
});

test('GET /openapi.json serves an OpenAPI 3.1 document that a real OpenAPI validator accepts', async (t) => {
  const response = await fetch(`${app.url}/openapi.json`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
  t.is(document.openapi, '3.1.0');
  t.is(document.info.version, '1.0.0');
  const validator = new Validator();
  const result = await validator.validate(document as never);
  t.is(validator.version, '3.1');
  t.deepEqual(result, { valid: true });
});

test('the served document is the one built from the route schemas', (t) => {
  t.deepEqual(document, buildOpenApiDocument({ publicUrl: app.services.config.publicUrl }) as Record<string, any>);
  t.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['apiKey', 'metricsToken', 'sessionCookie']);
  t.deepEqual(document.components.securitySchemes.sessionCookie, {
    type: 'apiKey',
    in: 'cookie',
    name: 'service_session',
    description: document.components.securitySchemes.sessionCookie.description,
  });
  t.is(document.components.securitySchemes.apiKey.scheme, 'bearer');
  // One source: the request schema the route validates with, as JSON Schema.
  const request = document.components.schemas.SimulationRequest;
  // `preset` or `model`, exactly one (docs/models.md#running-a-model-post-v1simulations-with-model): neither is
  // required on its own.
  t.deepEqual(request.required, ['num_interactions']);
  t.false(request.additionalProperties);
  t.is(request.properties.seed.maximum, 4_294_967_295);
});

test('every route the routers serve is documented (or listed as not part of the API), and every documented route exists', (t) => {
  const registered = registeredRoutes(buildApp(app.services));
  const documented = new Set(OPERATIONS.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`));
  const undocumented = new Set(Object.keys(UNDOCUMENTED_ROUTES));
  for (const route of registered) {
    t.true(documented.has(route) || undocumented.has(route), `${route} is served but not documented`);
    t.false(documented.has(route) && undocumented.has(route), `${route} is both documented and excluded`);
  }
  for (const route of [...documented, ...undocumented]) {
    t.true(registered.has(route), `${route} is documented but not served`);
  }
  const inDocument = Object.entries(document.paths as Record<string, object>).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  t.deepEqual([...new Set(inDocument)].sort(), [...documented].sort());
});

// Responses seen over HTTP, checked against the document: status documented, media type, body schema.
const seen = new Map<string, Set<number>>();

const pointer = (...parts: string[]): string => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

const call = async (
  operation: OperationSpec,
  path: string,
  init: RequestInit & { key?: string } = {},
): Promise<{ status: number; body: unknown; response: Response }> => {
  const headers = new Headers(init.headers);
  if (init.key !== undefined) {
    headers.set('Authorization', `Bearer ${init.key}`);
  }
  if (typeof init.body === 'string' && !headers.has('Content-Type')) {
    headers.set('Content-Type', 'application/json');
  }
  const response = await fetch(`${app.url}${path}`, { ...init, headers, method: operation.method.toUpperCase(), redirect: 'manual' });
  const text = await response.text();
  const documented = document.paths[operation.path]?.[operation.method]?.responses?.[String(response.status)];
  if (documented === undefined) {
    throw new Error(`${operation.method} ${operation.path} answered ${response.status}, which is not documented: ${text.slice(0, 300)}`);
  }
  if (response.headers.get('x-request-id') === null) {
    throw new Error('a response without X-Request-ID');
  }
  const [mediaType] = Object.keys(documented.content ?? {});
  let body: unknown;
  if (mediaType === 'application/json') {
    if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) {
      throw new Error(`${operation.path} ${response.status}: expected JSON, got ${response.headers.get('content-type')}`);
    }
    body = JSON.parse(text);
    const schemaRef = `openapi.json#/${pointer('paths', operation.path, operation.method, 'responses', String(response.status), 'content', 'application/json', 'schema')}`;
    const validate = ajv.getSchema(schemaRef);
    if (validate === undefined) {
      throw new Error(`no schema at ${schemaRef}`);
    }
    if (!validate(body)) {
      throw new Error(`${operation.method} ${operation.path} ${response.status} does not conform: ${JSON.stringify(validate.errors)}\n${text.slice(0, 500)}`);
    }
  } else if (mediaType !== undefined) {
    if ((response.headers.get('content-type') ?? '').split(';')[0] !== mediaType.split(';')[0]) {
      throw new Error(`${operation.path} ${response.status}: expected ${mediaType}, got ${response.headers.get('content-type')}`);
    }
    body = text;
  }
  const key = `${operation.method} ${operation.path}`;
  seen.set(key, (seen.get(key) ?? new Set()).add(response.status));
  return { status: response.status, body, response };
};

const op = (method: string, path: string): OperationSpec => {
  const found = OPERATIONS.find((operation) => operation.method === method && operation.path === path);
  if (found === undefined) {
    throw new Error(`no documented ${method} ${path}`);
  }
  return found;
};

test.serial('responses of every documented operation, successes and failures, conform to the document', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const metricsToken = 'metrics-token-for-openapi-tests-01';

  t.is((await call(op('get', '/health'), '/health')).status, 200);
  t.is((await call(op('get', '/ready'), '/ready')).status, 200);
  t.is((await call(op('get', '/v1/presets'), '/v1/presets')).status, 200);
  for (const name of ['finance', 'mobile', 'healthcare', 'education']) {
    t.is((await call(op('get', '/v1/presets/{preset}'), `/v1/presets/${name}`)).status, 200);
  }
  t.is((await call(op('get', '/v1/presets/{preset}'), '/v1/presets/astrology')).status, 404);
  for (const name of ['finance', 'mobile']) {
    t.is((await call(op('get', '/v1/presets/{preset}/fidelity'), `/v1/presets/${name}/fidelity`)).status, 200);
  }
  t.is((await call(op('get', '/v1/presets/{preset}/fidelity'), '/v1/presets/astrology/fidelity')).status, 404);

  const simulate = op('post', '/v1/simulations');
  for (const preset of ['finance', 'education', 'healthcare', 'mobile_app']) {
    t.is((await call(simulate, '/v1/simulations', { key, body: JSON.stringify({ preset, num_interactions: 25, seed: 11 }) })).status, 200);
  }
  t.is((await call(simulate, '/v1/simulations', { body: JSON.stringify({ preset: 'finance', num_interactions: 5 }) })).status, 401);
  t.is((await call(simulate, '/v1/simulations', { key: 'bs_live_00000000000000000000000000000000', body: '{}' })).status, 401);
  t.is((await call(simulate, '/v1/simulations', { key, body: '{"preset":' })).status, 400);
  t.is((await call(simulate, '/v1/simulations', { key, body: JSON.stringify({ preset: 'finance', num_interactions: 5 }), headers: { Accept: 'application/xml' } })).status, 406);
  t.is((await call(simulate, '/v1/simulations', { key, body: JSON.stringify({ preset: 'finance', num_interactions: 0, extra: 1 }) })).status, 422);
  t.is((await call(simulate, '/v1/simulations', { key, body: 'preset=finance', headers: { 'Content-Type': 'text/plain' } })).status, 415);
  t.is((await call(simulate, '/v1/simulations', { key, body: JSON.stringify({ preset: 'finance', pad: 'x'.repeat(20_000) }) })).status, 413);

  const history = await call(op('get', '/v1/simulations'), '/v1/simulations?limit=2&preset=mobile', { key });
  t.is(history.status, 200);
  t.is((await call(op('get', '/v1/simulations'), '/v1/simulations?limit=2', { key })).status, 200);
  t.is((await call(op('get', '/v1/simulations'), '/v1/simulations?cursor=nope', { key })).status, 422);
  t.is((await call(op('get', '/v1/simulations'), '/v1/simulations')).status, 401);
  const { body: runs } = await call(op('get', '/v1/simulations'), '/v1/simulations?status=completed&limit=1', { key });
  const runId = (runs as { data: { simulation_id: string }[] }).data[0]?.simulation_id ?? '';
  t.is((await call(op('get', '/v1/simulations/{simulation_id}'), `/v1/simulations/${runId}`, { key })).status, 200);
  t.is((await call(op('get', '/v1/simulations/{simulation_id}'), '/v1/simulations/not-a-uuid', { key })).status, 404);
  t.is((await call(op('get', '/v1/simulations/{simulation_id}/records'), `/v1/simulations/${runId}/records`, { key })).status, 200);
  t.is((await call(op('get', '/v1/simulations/{simulation_id}/records'), '/v1/simulations/not-a-uuid/records', { key })).status, 404);
  const records = op('get', '/v1/simulations/{simulation_id}/records');
  t.is((await call(records, `/v1/simulations/${runId}/records`, { key, headers: { Range: 'bytes=2-', Accept: 'application/x-ndjson' } })).status, 206);
  t.is((await call(records, `/v1/simulations/${runId}/records`, { key, headers: { Range: 'bytes=99999999-' } })).status, 416);
  const dataset = op('get', '/v1/simulations/{simulation_id}/dataset');
  const scenarioBody = { preset: 'finance', num_interactions: 60, seed: 3, scenario: { random: { types: ['rally'], per_sequence: 1, duration: [2, 5], intensity: [1, 1] } } };
  const scenarioRun = await call(simulate, '/v1/simulations', { key, body: JSON.stringify(scenarioBody) });
  t.is(scenarioRun.status, 200);
  const scenarioRunId = (scenarioRun.body as { simulation_id: string }).simulation_id;
  t.is((await call(dataset, `/v1/simulations/${scenarioRunId}/dataset?layout=nab`, { key })).status, 200);
  t.is((await call(dataset, `/v1/simulations/${runId}/dataset?layout=timeeval`, { key })).status, 422);
  t.is((await call(dataset, '/v1/simulations/not-a-uuid/dataset?layout=timeeval', { key })).status, 404);
  t.is((await call(dataset, `/v1/simulations/${scenarioRunId}/dataset?layout=nab`)).status, 401);
  const links = op('post', '/v1/simulations/{simulation_id}/links');
  const link = await call(links, `/v1/simulations/${runId}/links`, { key, body: JSON.stringify({ format: 'json' }) });
  t.is(link.status, 201);
  const ndjsonLink = await call(links, `/v1/simulations/${runId}/links`, { key, body: JSON.stringify({ format: 'ndjson' }) });
  t.is((await call(links, `/v1/simulations/${runId}/links`, { key, body: JSON.stringify({ format: 'xml' }) })).status, 422);
  t.is((await call(links, '/v1/simulations/not-a-uuid/links', { key, body: JSON.stringify({ format: 'csv' }) })).status, 404);
  const downloads = op('get', '/v1/downloads/{token}');
  const linkPath = new URL((link.body as { url: string }).url).pathname;
  t.is((await call(downloads, linkPath)).status, 200);
  t.is((await call(downloads, new URL((ndjsonLink.body as { url: string }).url).pathname, { headers: { Range: 'bytes=0-9' } })).status, 206);
  t.is((await call(downloads, '/v1/downloads/forged')).status, 404);

  // Live streams (docs/streams.md): a fast one, read whole over SSE, then the rest of its operations.
  const createStream = op('post', '/v1/streams');
  const stream = await call(createStream, '/v1/streams', { key, body: JSON.stringify({ preset: 'finance', num_interactions: 3, speed: 100_000, start_time: '2026-01-01T00:00:00.000Z' }) });
  t.is(stream.status, 201);
  t.is((await call(createStream, '/v1/streams', { key, body: JSON.stringify({ preset: 'finance', num_interactions: 3, speed: 0 }) })).status, 422);
  const streamId = (stream.body as { id: string }).id;
  t.is((await call(op('get', '/v1/streams/{stream_id}/events'), `/v1/streams/${streamId}/events`, { key })).status, 200);
  t.is((await call(op('get', '/v1/streams/{stream_id}/events'), '/v1/streams/not-a-uuid/events', { key })).status, 404);
  t.is((await call(op('get', '/v1/streams'), '/v1/streams?limit=1', { key })).status, 200);
  t.is((await call(op('get', '/v1/streams/{stream_id}'), `/v1/streams/${streamId}`, { key })).status, 200);
  t.is((await call(op('get', '/v1/streams/{stream_id}'), '/v1/streams/not-a-uuid', { key })).status, 404);
  t.is((await call(op('delete', '/v1/streams/{stream_id}'), `/v1/streams/${streamId}`, { key })).status, 200);

  t.is((await call(op('get', '/v1/account'), '/v1/account', { key })).status, 200);
  t.is((await call(op('get', '/v1/account'), '/v1/account')).status, 401);
  t.is((await call(op('get', '/v1/usage'), '/v1/usage', { key })).status, 200);
  t.is((await call(op('get', '/v1/usage/daily'), '/v1/usage/daily', { key })).status, 200);
  t.is((await call(op('get', '/v1/usage/daily'), '/v1/usage/daily?period=2026-13', { key })).status, 422);
  t.is((await call(op('get', '/v1/usage/daily'), '/v1/usage/daily')).status, 401);
  t.is((await call(op('get', '/v1/plans'), '/v1/plans')).status, 200);
  t.is((await call(op('get', '/v1/api-keys'), '/v1/api-keys', { key })).status, 200);
  const created = await call(op('post', '/v1/api-keys'), '/v1/api-keys', { key, body: JSON.stringify({ name: 'openapi' }) });
  t.is(created.status, 201);
  t.is((await call(op('post', '/v1/api-keys'), '/v1/api-keys', { key, body: JSON.stringify({ name: '' }) })).status, 422);
  t.is((await call(op('get', '/v1/api-keys'), '/v1/api-keys', { key })).status, 200);
  const createdId = (created.body as { id: string }).id;
  const createOnce = { key, body: JSON.stringify({ name: 'idempotent' }), headers: { 'Idempotency-Key': 'openapi-create-1' } };
  t.is((await call(op('post', '/v1/api-keys'), '/v1/api-keys', createOnce)).status, 201);
  t.is((await call(op('post', '/v1/api-keys'), '/v1/api-keys', createOnce)).status, 201);
  t.is((await call(op('post', '/v1/api-keys'), '/v1/api-keys', { ...createOnce, body: JSON.stringify({ name: 'other' }) })).status, 422);
  t.is((await call(op('post', '/v1/api-keys'), '/v1/api-keys', { ...createOnce, headers: { 'Idempotency-Key': 'a b' } })).status, 400);
  const roll = op('post', '/v1/api-keys/{key_id}/roll');
  const rolled = await call(roll, `/v1/api-keys/${createdId}/roll`, { key, body: JSON.stringify({ expires_in: 60 }) });
  t.is(rolled.status, 201);
  t.is((await call(roll, `/v1/api-keys/${createdId}/roll`, { key })).status, 409);
  t.is((await call(roll, `/v1/api-keys/${(rolled.body as { id: string }).id}/roll`, { key, body: JSON.stringify({ expires_in: -1 }) })).status, 422);
  t.is((await call(roll, '/v1/api-keys/not-a-uuid/roll', { key })).status, 404);
  t.is((await call(op('delete', '/v1/api-keys/{key_id}'), `/v1/api-keys/${createdId}`, { key })).status, 200);
  t.is((await call(op('delete', '/v1/api-keys/{key_id}'), '/v1/api-keys/not-a-uuid', { key })).status, 404);

  const disabled = await buildAccount(app.services.pool, { is_active: false });
  const disabledKey = await buildApiKey(app.services.pool, disabled.id);
  t.is((await call(op('get', '/v1/usage'), '/v1/usage', { key: disabledKey.key })).status, 403);

  t.is((await call(op('get', '/v1/auth/providers'), '/v1/auth/providers')).status, 200);
  t.is((await call(op('get', '/v1/auth/{provider}'), '/v1/auth/github')).status, 503);
  t.is((await call(op('get', '/v1/auth/{provider}'), '/v1/auth/myspace')).status, 404);
  t.is((await call(op('get', '/v1/auth/{provider}'), '/v1/auth/logout')).status, 405);
  t.is((await call(op('get', '/v1/auth/{provider}/callback'), '/v1/auth/myspace/callback?state=x&code=y')).status, 404);
  t.is((await call(op('post', '/v1/auth/logout'), '/v1/auth/logout', { headers: { Accept: 'application/json' } })).status, 200);

  const metrics = op('get', '/metrics');
  t.is((await call(metrics, '/metrics')).status, 401);
  t.is((await call(metrics, '/metrics', { headers: { Authorization: `Bearer ${metricsToken}` } })).status, 200);

  const definition = JSON.stringify(tinyModel());
  const putModel = op('put', '/v1/models/{name}');
  t.is((await call(putModel, '/v1/models/members', { key, body: definition })).status, 201);
  t.is((await call(putModel, '/v1/models/members', { key, body: definition })).status, 200);
  t.is((await call(putModel, '/v1/models/members', { key, body: JSON.stringify(tinyModel({ states: [] })) })).status, 422);
  t.is((await call(putModel, '/v1/models/members', { key, body: '{"states":' })).status, 400);
  t.is((await call(putModel, '/v1/models/members', { key, body: JSON.stringify({ pad: 'x'.repeat(70_000) }) })).status, 413);
  t.is((await call(putModel, '/v1/models/members', { key, body: 'x', headers: { 'Content-Type': 'text/plain' } })).status, 415);
  t.is((await call(putModel, '/v1/models/members', { body: definition })).status, 401);
  t.is((await call(op('get', '/v1/models'), '/v1/models', { key })).status, 200);
  t.is((await call(op('get', '/v1/models/{name}'), '/v1/models/members', { key })).status, 200);
  t.is((await call(op('get', '/v1/models/{name}'), '/v1/models/nosuch', { key })).status, 404);
  t.is((await call(op('get', '/v1/models/{name}/versions/{version}'), '/v1/models/members/versions/1', { key })).status, 200);
  t.is((await call(op('get', '/v1/models/{name}/versions/{version}'), '/v1/models/members/versions/9', { key })).status, 404);
  t.is((await call(op('post', '/v1/models/validate'), '/v1/models/validate', { key, body: definition })).status, 200);
  t.is((await call(op('post', '/v1/models/validate'), '/v1/models/validate', { key, body: JSON.stringify({}) })).status, 200);
  t.is((await call(simulate, '/v1/simulations', { key, body: JSON.stringify({ model: 'members', num_interactions: 25, seed: 11 }) })).status, 200);
  t.is((await call(simulate, '/v1/simulations', { key, body: JSON.stringify({ model: 'nosuch', num_interactions: 25 }) })).status, 404);
  t.is((await call(op('delete', '/v1/models/{name}'), '/v1/models/members', { key })).status, 200);
  t.is((await call(op('delete', '/v1/models/{name}'), '/v1/models/members', { key })).status, 404);

  for (const operation of OPERATIONS) {
    t.true(seen.has(`${operation.method} ${operation.path}`), `no response of ${operation.method} ${operation.path} was checked`);
  }
});

test.serial('a response that breaks its schema is caught by the conformance check', async (t) => {
  // The check itself must be able to fail: a preset with a field removed does not conform.
  const validate = ajv.getSchema(`openapi.json#/${pointer('paths', '/v1/presets/{preset}', 'get', 'responses', '200', 'content', 'application/json', 'schema')}`);
  const preset = (await (await fetch(`${app.url}/v1/presets/finance`)).json()) as Record<string, unknown>;
  t.true(validate?.(preset));
  const { supported_states: _removed, ...broken } = preset;
  t.false(validate?.(broken));
});
