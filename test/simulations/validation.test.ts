import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { postSimulation } from './postSimulation.ts';

// No worker in this file: every request here must be refused before anything is enqueued.
let app: TestApp;
let key: string;

test.before(async () => {
  app = await startTestApp();
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  ({ key } = await buildApiKey(app.services.pool, account.id));
});

test.after.always(async () => {
  await app?.close();
});

const countLedgerRows = async (): Promise<number> =>
  app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM simulations`);

const INVALID: ReadonlyArray<readonly [string, unknown, string]> = [
  ['an unknown preset', { preset: 'retail', num_interactions: 10 }, 'preset'],
  ["another preset's profile", { preset: 'finance', profile: 'average', num_interactions: 10 }, 'profile'],
  ['an unknown profile', { preset: 'education', profile: 'genius', num_interactions: 10 }, 'profile'],
  ['a negative seed', { preset: 'finance', num_interactions: 10, seed: -1 }, 'seed'],
  ['a seed above 4294967295', { preset: 'finance', num_interactions: 10, seed: 4_294_967_296 }, 'seed'],
  ['a fractional seed', { preset: 'finance', num_interactions: 10, seed: 1.5 }, 'seed'],
  ['a seed given as a string', { preset: 'finance', num_interactions: 10, seed: '42' }, 'seed'],
  ['zero interactions', { preset: 'finance', num_interactions: 0 }, 'num_interactions'],
  ['negative interactions', { preset: 'finance', num_interactions: -3 }, 'num_interactions'],
  ['fractional interactions', { preset: 'finance', num_interactions: 2.5 }, 'num_interactions'],
  ['interactions given as a string', { preset: 'finance', num_interactions: '10' }, 'num_interactions'],
  ['interactions beyond a safe integer', { preset: 'finance', num_interactions: 2 ** 53 }, 'num_interactions'],
  ['no num_interactions', { preset: 'finance' }, 'num_interactions'],
  ['no preset', { num_interactions: 10 }, 'preset'],
  ['an unknown field', { preset: 'finance', num_interactions: 10, sed: 1 }, 'sed'],
  ['a preset that is not a string', { preset: 3, num_interactions: 10 }, 'preset'],
  ['an unknown engine major', { preset: 'finance', num_interactions: 10, engine_version: '5' }, 'engine_version'],
  ['an engine version the service does not have', { preset: 'finance', num_interactions: 10, engine_version: '1.0.1' }, 'engine_version'],
  ['an engine version that is not a version', { preset: 'finance', num_interactions: 10, engine_version: 'latest' }, 'engine_version'],
  ['an engine version given as a number', { preset: 'finance', num_interactions: 10, engine_version: 1 }, 'engine_version'],
  ['a body that is an array', [{ preset: 'finance', num_interactions: 10 }], ''],
];

for (const [what, body, path] of INVALID) {
  test(`422 validation_failed with an issue at "${path}" for ${what}`, async (t) => {
    const response = await postSimulation(app, body, { key });
    t.is(response.status, 422, response.text);
    t.is(response.body.error.details.code, 'validation_failed');
    t.is(response.body.error.status_code, 422);
    t.is(response.body.error.request_id, response.headers.get('x-request-id'));
    const issues = response.body.error.details.issues as { path: string; message: string }[];
    t.true(issues.some((issue) => issue.path === path && typeof issue.message === 'string' && issue.message !== ''), JSON.stringify(issues));
  });
}

test('422 lists every problem of a body at once', async (t) => {
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 0, seed: -1, extra: true }, { key });
  t.is(response.status, 422);
  const paths = (response.body.error.details.issues as { path: string }[]).map((issue) => issue.path).sort();
  t.deepEqual(paths, ['extra', 'num_interactions', 'seed']);
});

test('401 authentication_required comes before validation and parsing', async (t) => {
  const invalid = await postSimulation(app, { preset: 'retail' });
  t.is(invalid.status, 401);
  t.is(invalid.body.error.details.code, 'authentication_required');
  const broken = await postSimulation(app, '{"preset":');
  t.is(broken.status, 401);
});

test('401 invalid_credentials for an unknown key', async (t) => {
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: `bs_live_${'x'.repeat(32)}` });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('400 invalid_json and 415 unsupported_media_type for bodies that are not JSON', async (t) => {
  const broken = await postSimulation(app, '{"preset":', { key });
  t.is(broken.status, 400);
  t.is(broken.body.error.details.code, 'invalid_json');
  const text = await postSimulation(app, 'preset=finance', { key, headers: { 'Content-Type': 'text/plain' } });
  t.is(text.status, 415);
  t.is(text.body.error.details.code, 'unsupported_media_type');
});

test('refused requests leave no ledger row and enqueue nothing', async (t) => {
  await postSimulation(app, { preset: 'retail', num_interactions: 10 }, { key });
  await postSimulation(app, { preset: 'finance', num_interactions: 10 });
  t.is(await countLedgerRows(), 0);
  t.is(await app.services.simulations.queue.count(), 0);
});

test('a preset the operator took out of service is listed available:false and refused with 409 preset_unavailable, consuming no quota', async (t) => {
  const restricted = await startTestApp({ database: app.database, env: { DISABLED_PRESETS: 'healthcare' } });
  t.teardown(() => restricted.close());
  const listed = (await (await fetch(`${restricted.url}/v1/presets/healthcare`)).json()) as { available: boolean };
  t.false(listed.available);
  const refused = await postSimulation(restricted, { preset: 'healthcare', num_interactions: 1 }, { key });
  t.is(refused.status, 409);
  t.is(refused.body.error.details.code, 'preset_unavailable');
  t.is(await countLedgerRows(), 0);
  t.is(await restricted.services.simulations.queue.count(), 0);
});

// GET lists the run history (docs/api.md#run-history-and-replay); other methods are refused.
test('DELETE on /v1/simulations is 405 with Allow: GET, POST', async (t) => {
  const response = await fetch(`${app.url}/v1/simulations`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
  t.is(response.status, 405);
  t.regex(response.headers.get('allow') ?? '', /POST/);
  t.regex(response.headers.get('allow') ?? '', /GET/);
});
