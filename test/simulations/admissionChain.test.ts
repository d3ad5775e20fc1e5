import type Router from '@koa/router';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { historyRoutes } from '../../api/routes/simulations/historyRoutes.ts';
import { simulationRoutes } from '../../api/routes/simulations/routes.ts';
import { simulationRequestSchema } from '../../api/routes/simulations/schema.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

let app: TestApp;
let stopWorker: () => Promise<void>;

test.before(async () => {
  app = await startTestApp();
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1 });
  stopWorker = () => worker.close();
});

test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

const SMALL = { preset: 'finance', num_interactions: 1, seed: 1 };

/** The names of a route's middlewares, in the order @koa/router runs them. */
const chainOf = (router: Router, method: string, path: string): string[] => {
  const layer = router.stack.find((candidate) => candidate.path === path && candidate.methods.includes(method));
  return layer === undefined ? [] : layer.stack.map((middleware) => middleware.name);
};

const rateWindowSize = (accountId: string): Promise<number> => app.services.redis.zcard(limitKeys(app.redisPrefix, accountId, 'unused').rateWindow);


// The order of checks past authentication is one handler's, which passes typed values from step to step
// (POST: format → parse → idempotency → admit → run → present; GET records: format → the run looked up →
// admit → run → present); the tests below hold each to the order.
test('POST /v1/simulations reads as its chain: authenticate, then the simulate handler', (t) => {
  t.deepEqual(chainOf(simulationRoutes(app.services), 'POST', '/v1/simulations'), ['authenticate', 'simulate']);
});

test('GET /v1/simulations/{id}/records reads as its chain: authenticate, then the records handler', (t) => {
  t.deepEqual(chainOf(historyRoutes(app.services), 'GET', '/v1/simulations/:simulation_id/records'), ['authenticate', 'records']);
});

test('authenticate answers first: an invalid body without credentials is 401, not 422', async (t) => {
  const response = await postSimulation(app, { preset: 'retail' });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'authentication_required');
});

test('a revoked key this process had cached gets 401 for an invalid body, not 422', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 200);
  const keys = (await (await fetch(`${app.url}/v1/api-keys`, { headers: { Authorization: `Bearer ${caller.key}` } })).json()) as { id: string }[];
  const revoked = await fetch(`${app.url}/v1/api-keys/${keys[0]?.id ?? ''}`, { method: 'DELETE', headers: { Authorization: `Bearer ${caller.key}` } });
  t.is(revoked.status, 200);
  const response = await postSimulation(app, { preset: 'retail', num_interactions: 1 }, { key: caller.key });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('the format is decided before the body: an unacceptable Accept with an invalid body is 406', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const response = await postSimulation(app, { preset: 'retail' }, { key: caller.key, headers: { Accept: 'image/png' } });
  t.is(response.status, 406);
});

test('the rate limiter counts before the body is judged: an invalid body is 422 and counted, and at the limit it is 429 (the documented order of checks)', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 3 });
  t.is((await postSimulation(app, SMALL, { key: caller.key })).status, 200);
  t.is(await rateWindowSize(caller.accountId), 1);

  // Refused by validate's verdict, answered by admit after the rate limiter counted it: a place in the
  // window and the RateLimit fields, like every answer past authentication.
  const invalid = await postSimulation(app, { preset: 'retail', num_interactions: 1 }, { key: caller.key });
  t.is(invalid.status, 422);
  t.is(invalid.body.error.details.code, 'validation_failed');
  t.regex(invalid.headers.get('ratelimit') ?? '', /^"rpm";r=1;t=\d+$/);
  const broken = await postSimulation(app, '{"preset":', { key: caller.key });
  t.is(broken.status, 400);
  t.is(await rateWindowSize(caller.accountId), 3);

  // At the limit the 429 comes first, whatever the body, and a rejected 429 is not counted.
  const limited = await postSimulation(app, { preset: 'retail' }, { key: caller.key });
  t.is(limited.status, 429);
  t.is(limited.body.error.details.code, 'rate_limit_exceeded');
  t.is(await rateWindowSize(caller.accountId), 3);
});

test('the alias mobile is resolved once: headers, body, ledger, history and an idempotent replay all say mobile_app', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const body = { preset: 'mobile', num_interactions: 3, seed: 7 };
  const headers = { 'Idempotency-Key': `mobile-${caller.accountId}` };
  const first = await postSimulation(app, body, { key: caller.key, headers });
  t.is(first.status, 200, first.text);
  t.is(first.headers.get('simulation-preset'), 'mobile_app');
  t.is(first.body.preset, 'mobile_app');
  const simulationId = first.headers.get('simulation-id') ?? '';

  await ledgerWritten(app.services);
  const ledger = await app.services.pool.oneFirst(sql.type(z.object({ preset: z.string() }))`SELECT preset FROM simulations WHERE id = ${simulationId}`);
  t.is(ledger, 'mobile_app');

  const auth = { Authorization: `Bearer ${caller.key}` };
  const run = (await (await fetch(`${app.url}/v1/simulations/${simulationId}`, { headers: auth })).json()) as { preset: string };
  t.is(run.preset, 'mobile_app');
  const listed = (await (await fetch(`${app.url}/v1/simulations?preset=mobile`, { headers: auth })).json()) as { data: { simulation_id: string; preset: string }[] };
  t.deepEqual(listed.data.map((item) => [item.simulation_id, item.preset]), [[simulationId, 'mobile_app']]);

  const replayed = await postSimulation(app, body, { key: caller.key, headers });
  t.is(replayed.status, 200);
  t.is(replayed.headers.get('idempotent-replayed'), 'true');
  t.is(replayed.headers.get('simulation-preset'), 'mobile_app');
  t.is(replayed.body.preset, 'mobile_app');
  t.is(replayed.body.simulation_id, simulationId);
  t.deepEqual(replayed.body.data, first.body.data);
});

test('validation hands on the canonical preset: the stages after it never see the alias', (t) => {
  const request = simulationRequestSchema.parse({ preset: 'mobile', num_interactions: 1 }) as unknown as { preset: string; profile: string };
  t.is(request.preset, 'mobile_app');
  t.is(request.profile, 'casual_user');
});
