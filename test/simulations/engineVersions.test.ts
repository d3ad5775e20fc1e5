import { createHash, randomUUID } from 'node:crypto';
import test from 'ava';
import { generateRecords } from '../../shared/engine/index.ts';
import { startTestDataPlane } from '../helpers/startTestDataPlane.ts';
import { SIMULATION_JOB_NAME } from '../../shared/jobs/simulationJob.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { postSimulation, rawData } from './postSimulation.ts';

// docs/api.md#engine-versions: engine_version picks the engine through the real queue and worker threads;
// metadata.service_version says which ran, and engine 1's bytes are the ones its golden digests pin.
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

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

test('without engine_version the newest engine (4.0.0) runs', async (t) => {
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 50, seed: 42 }, { key });
  t.is(response.status, 200, response.text);
  t.is(response.body.metadata.service_version, '4.0.0');
  t.deepEqual(response.body.data, generateRecords({ preset: 'finance', profile: 'balanced_investor', seed: 42, numInteractions: 50, serviceVersion: '4.0.0' }));
});

for (const [requested, exact] of [
  ['1', '1.0.0'],
  ['1.0.0', '1.0.0'],
  ['2', '2.0.0'],
  ['2.0.0', '2.0.0'],
  ['3', '3.0.0'],
  ['3.0.0', '3.0.0'],
  ['4', '4.0.0'],
  ['4.0.0', '4.0.0'],
] as const) {
  test(`engine_version "${requested}" runs engine ${exact} and says so in metadata.service_version`, async (t) => {
    const response = await postSimulation(app, { preset: 'finance', num_interactions: 50, seed: 42, engine_version: requested }, { key });
    t.is(response.status, 200, response.text);
    t.is(response.body.metadata.service_version, exact);
    t.deepEqual(response.body.data, generateRecords({ preset: 'finance', profile: 'balanced_investor', seed: 42, numInteractions: 50, serviceVersion: exact }));
  });
}

test('engine 1 is byte-identical to its golden digest through the API, and differs from engine 2', async (t) => {
  // The first digest of test/engine/goldenDigests.test.ts's engine 1.0.0 finance rows.
  const one = await postSimulation(app, { preset: 'finance', profile: 'balanced_investor', num_interactions: 1000, seed: 42, engine_version: '1' }, { key });
  t.is(one.status, 200, one.text);
  t.is(sha256(rawData(one.text)), 'f8eb2a6017bf5af36d0b96fc08c8a3fbedc01b2f88098b1f0c21447305c3edd7');
  const two = await postSimulation(app, { preset: 'finance', profile: 'balanced_investor', num_interactions: 1000, seed: 42, engine_version: '2' }, { key });
  t.is(two.status, 200, two.text);
  t.not(rawData(two.text), rawData(one.text));
});

test('every preset runs on every engine version it lists', async (t) => {
  const catalog = (await (await fetch(`${app.url}/v1/presets`)).json()) as { name: string; engine_versions: string[] }[];
  for (const preset of catalog) {
    t.deepEqual(preset.engine_versions, ['4.0.0', '3.0.0', '2.0.0', '1.0.0']);
    for (const version of preset.engine_versions) {
      const response = await postSimulation(app, { preset: preset.name, num_interactions: 5, seed: 3, engine_version: version }, { key });
      t.is(response.status, 200, response.text);
      t.is(response.body.metadata.service_version, version, `${preset.name} ${version}`);
    }
  }
});

test('a job enqueued by a deployment that predates engine selection runs engine 1.0.0, the only one it knew', async (t) => {
  // The job data such a deployment wrote: no serviceVersion. Its result is sent to a data plane of our own.
  const plane = await startTestDataPlane();
  t.teardown(() => plane.close());
  const simulationId = randomUUID();
  await app.services.simulations.queue.add(
    SIMULATION_JOB_NAME,
    { simulationId, preset: 'finance', profile: 'balanced_investor', seed: 42, numInteractions: 1000, apiVersion: '1.0.0', deadline: Date.now() + 60_000, replyTo: plane.address },
    { jobId: simulationId },
  );
  const run = await plane.nextRun();
  t.is(run.runId, simulationId);
  t.is(run.trailers['bss-outcome'], 'completed');
  const body = run.body.toString();
  t.truthy(body);
  t.is(JSON.parse(body).metadata.service_version, '1.0.0');
  t.is(sha256(rawData(body)), 'f8eb2a6017bf5af36d0b96fc08c8a3fbedc01b2f88098b1f0c21447305c3edd7');
});
