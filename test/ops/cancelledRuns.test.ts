import { readFile } from 'node:fs/promises';
import test from 'ava';
import { PRESET_NAMES } from '../../shared/engine/index.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { getWithKey, insertLedgerRow } from '../history/historyFixtures.ts';
import { sampleValue, scrape } from './scrape.ts';

// docs/fair-use.md#cancelled-runs: a run whose client left is settled `cancelled`, a status of its own,
// accepted by the history `status` filter and shown apart from `failed` in history and metrics.
const DASHBOARD = new URL('../../deploy/grafana/bss-overview.json', import.meta.url);
let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

test('the history lists cancelled runs under status=cancelled, apart from failed ones, and does not replay them', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  const cancelled = await insertLedgerRow(app.services.pool, me.accountId, { status: 'cancelled' });
  const failed = await insertLedgerRow(app.services.pool, me.accountId, { status: 'failed' });
  const onlyCancelled = await getWithKey(app, '/v1/simulations?status=cancelled', me.key);
  t.is(onlyCancelled.status, 200, onlyCancelled.text);
  t.deepEqual(onlyCancelled.body.data.map((run: { simulation_id: string }) => run.simulation_id), [cancelled]);
  t.is(onlyCancelled.body.data[0].status, 'cancelled');
  const onlyFailed = await getWithKey(app, '/v1/simulations?status=failed', me.key);
  t.deepEqual(onlyFailed.body.data.map((run: { simulation_id: string }) => run.simulation_id), [failed]);
  t.is((await getWithKey(app, `/v1/simulations/${cancelled}`, me.key)).body.status, 'cancelled');
  const replay = await getWithKey(app, `/v1/simulations/${cancelled}/records`, me.key);
  t.is(replay.status, 409);
  t.like(replay.body.error.details, { code: 'simulation_not_completed', status: 'cancelled' });
});

test('the OpenAPI document lists and describes cancelled among the statuses of a run and of the history filter', async (t) => {
  const document = (await (await fetch(`${app.url}/openapi.json`)).json()) as any;
  const list = document.paths['/v1/simulations'].get;
  const status = list.parameters.find((parameter: { name: string }) => parameter.name === 'status');
  t.true(status.schema.enum.includes('cancelled'));
  t.regex(status.description, /cancelled/);
  t.regex(JSON.stringify(document.components.schemas.Run ?? document), /cancelled/);
});

test('/metrics counts cancelled runs in a series of their own, present from the start for every preset', async (t) => {
  const samples = await scrape(app.url);
  for (const preset of PRESET_NAMES) {
    for (const outcome of ['completed', 'failed', 'timed_out', 'cancelled', 'unavailable']) {
      t.is(sampleValue(samples, 'bss_simulations_total', { preset, outcome }), 0, `${preset} ${outcome}`);
    }
  }
  const exposition = await (await fetch(`${app.url}/metrics`)).text();
  t.regex(exposition, /^# HELP bss_simulations_total .*cancelled.*$/m);
});

test('the Grafana dashboard shows cancelled runs as a series apart from failed ones', async (t) => {
  const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: { title: string; description?: string; targets?: { expr: string }[] }[] };
  const panel = dashboard.panels.find((each) => each.title === 'Simulations by outcome');
  const expressions = (panel?.targets ?? []).map((target) => target.expr);
  t.true(expressions.some((expr) => expr.includes('bss_simulations_total') && expr.includes('outcome="cancelled"')));
  t.true(expressions.some((expr) => expr.includes('bss_simulations_total') && expr.includes('outcome!="cancelled"')));
  t.regex(panel?.description ?? '', /cancelled/);
});
