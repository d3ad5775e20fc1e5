import test from 'ava';
import { eventually } from '../helpers/eventually.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { simulationResultSchema } from '../../api/routes/simulations/schema.ts';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { ENGINE_VERSION, generateRecords, PRESETS, resolvePreset } from '../../shared/engine/index.ts';
import { API_VERSION } from '../../shared/version.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { postSimulation, rawData } from './postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

let app: TestApp;
let key: string;

useFileStack(
  test,
  async (started) => {
    app = started;
    const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
    ({ key } = await buildApiKey(app.services.pool, account.id));
  },
  { threads: 2 },
);

for (const preset of PRESETS) {
  test(`${preset.name}: the real queue and pool return the Simulation result with the engine's records`, async (t) => {
    const response = await postSimulation(app, { preset: preset.name, num_interactions: 40, seed: 7 }, { key });
    t.is(response.status, 200, response.text);
    t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
    t.is(response.headers.get('cache-control'), 'no-store');
    t.truthy(response.headers.get('x-request-id'));
    const result = simulationResultSchema.parse(response.body);
    t.is(result.preset, preset.name);
    t.is(result.profile, preset.default_profile);
    t.is(result.num_interactions, 40);
    t.is(result.seed, 7);
    t.deepEqual(result.metadata, {
      service_version: ENGINE_VERSION,
      api_version: API_VERSION,
      compute_ms: result.metadata.compute_ms,
      reproducible: true,
    });
    t.true(Number.isInteger(result.metadata.compute_ms) && result.metadata.compute_ms >= 0);
    t.deepEqual(result.data, generateRecords({ preset: preset.name, profile: preset.default_profile, seed: 7, numInteractions: 40 }));
    const fieldNames = preset.record_fields.map((field) => field.name);
    for (const [index, record] of result.data.entries()) {
      t.deepEqual(Object.keys(record), fieldNames);
      t.is(record.interaction_id, index + 1);
      t.true(preset.supported_states.includes(String(record.state)));
    }
  });
}

test('finance records carry the fields the specification lists', async (t) => {
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 5, seed: 1 }, { key });
  t.is(response.status, 200);
  for (const record of response.body.data) {
    // The newest engine (4) carries event_time and ends every record with scenario_event, null without a scenario.
    t.deepEqual(Object.keys(record).sort(), ['daily_return', 'event_time', 'interaction_id', 'portfolio_value', 'risk_alert', 'scenario_event', 'sequence_id', 'state'].sort());
    t.is(record.scenario_event, null);
  }
});

test('the alias mobile runs mobile_app and the result names the canonical preset', async (t) => {
  const response = await postSimulation(app, { preset: 'mobile', num_interactions: 3, seed: 11 }, { key });
  t.is(response.status, 200, response.text);
  t.is(response.body.preset, 'mobile_app');
  t.is(response.body.profile, resolvePreset('mobile_app')?.default_profile);
});

test('a given profile is used and returned', async (t) => {
  const response = await postSimulation(app, { preset: 'finance', profile: 'active_trader', num_interactions: 3, seed: 11 }, { key });
  t.is(response.status, 200, response.text);
  t.is(response.body.profile, 'active_trader');
  t.deepEqual(response.body.data, generateRecords({ preset: 'finance', profile: 'active_trader', seed: 11, numInteractions: 3 }));
});

test('the same preset, profile, seed and n give byte-identical data', async (t) => {
  const body = { preset: 'healthcare', profile: 'critical_care', num_interactions: 500, seed: 4_294_967_295 };
  const [first, second] = await Promise.all([postSimulation(app, body, { key }), postSimulation(app, body, { key })]);
  t.is(first.status, 200);
  t.is(second.status, 200);
  t.is(rawData(first.text), rawData(second.text));
  t.not(first.body.simulation_id, second.body.simulation_id);
});

test('without a seed, one in 0..4294967295 is drawn and returned, and re-running with it reproduces the data', async (t) => {
  const drawn = await postSimulation(app, { preset: 'education', num_interactions: 50 }, { key });
  t.is(drawn.status, 200, drawn.text);
  const seed: unknown = drawn.body.seed;
  t.true(Number.isInteger(seed) && (seed as number) >= 0 && (seed as number) <= 4_294_967_295);
  const again = await postSimulation(app, { preset: 'education', num_interactions: 50, seed }, { key });
  t.is(rawData(again.text), rawData(drawn.text));
  const other = await postSimulation(app, { preset: 'education', num_interactions: 50 }, { key });
  t.not(other.body.seed, seed, 'two drawn seeds collide only once in 2^32');
});

test('seed 0 is accepted', async (t) => {
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 2, seed: 0 }, { key });
  t.is(response.status, 200);
  t.is(response.body.seed, 0);
});

test('the ledger row of a completed run records who asked, what ran, and the worker timings', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const apiKey = await buildApiKey(app.services.pool, account.id);
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 25, seed: 99 }, { key: apiKey.key });
  t.is(response.status, 200);
  await ledgerWritten(app.services);
  const row = await findSimulation(app.services.pool, response.body.simulation_id);
  if (row === null) {
    t.fail('no ledger row');
    return;
  }
  t.like(row, {
    account_id: account.id,
    api_key_id: apiKey.id,
    session_id: null,
    preset: 'finance',
    profile: 'balanced_investor',
    seed: 99,
    num_interactions: 25,
    status: 'completed',
    compute_ms: response.body.metadata.compute_ms,
  });
  const now = new Date();
  t.is(row.period_start, monthlyPeriod(now).start.toISOString());
  t.truthy(row.started_at);
  t.truthy(row.finished_at);
  t.true(Date.parse(row.finished_at ?? '') >= Date.parse(row.started_at ?? ''));
});

test('finished runs leave no result bytes and no job behind in Redis', async (t) => {
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, index) => postSimulation(app, { preset: 'finance', num_interactions: 100, seed: index }, { key })),
  );
  t.true(responses.every((response) => response.status === 200));
  const redis = app.services.redis;
  const ids = responses.map((response) => String(response.body.simulation_id));
  const leftoversOf = async (): Promise<string[]> => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${app.redisPrefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    // Other tests of this file run meanwhile, so only this test's own runs are looked for.
    return keys.filter((name) => ids.some((id) => name.endsWith(id)));
  };
  // A worker delivers the result before BullMQ removes the finished job, so the last removal may trail
  // the last response by a moment: wait for it, then require that nothing is left.
  const leftovers = await eventually(async () => {
    const found = await leftoversOf();
    return found.length === 0 ? found : undefined;
  }, 3000, 20).catch(() => leftoversOf());
  t.deepEqual(leftovers, []);
  t.is(await app.services.simulations.queue.getCompletedCount(), 0);
});
