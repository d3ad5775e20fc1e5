import test from 'ava';
import { BssApiError, createBssClient, type ModelDefinition } from '../../sdk/index.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { tinyModel } from '../models/modelFixtures.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const clientOf = async () => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  return createBssClient({ baseUrl: app.url, apiKey: (await buildApiKey(app.services.pool, account.id)).key });
};

test('models.put, get, list, validate and delete speak the Models endpoints; simulate runs a model', async (t) => {
  const client = await clientOf();
  const definition = tinyModel() as unknown as ModelDefinition;
  const stored = await client.models.put('members', definition);
  t.like(stored, { name: 'members', version: 1 });
  t.like(await client.models.put('members', definition), { version: 1, digest: stored.digest });
  const second = await client.models.put('members', { ...definition, max_steps: 9 });
  t.is(second.version, 2);
  t.is((await client.models.get('members')).version, 2);
  t.is((await client.models.get('members', 1)).digest, stored.digest);
  t.deepEqual(
    (await client.models.list()).map((model) => [model.name, model.version]),
    [['members', 2]],
  );
  const verdict = await client.models.validate(definition);
  t.true(verdict.valid);
  t.is(verdict.sample?.records.length, 20);
  t.false((await client.models.validate({ states: [] })).valid);

  const result = await client.simulate({ model: 'members@1', num_interactions: 15, seed: 4 });
  t.deepEqual(result.model, { name: 'members', version: 1, digest: stored.digest });
  t.is(result.preset, 'members');
  const stream = await client.streamSimulation({ model: 'members', num_interactions: 15, seed: 4 }, 'ndjson');
  t.is(stream.simulation.model, 'members@2');
  let records = 0;
  for await (const _record of stream.records()) records++;
  t.is(records, 15);

  t.deepEqual(await client.models.delete('members'), { status: 'deleted', name: 'members' });
  const gone = await t.throwsAsync(client.models.get('members'), { instanceOf: BssApiError });
  t.is(gone?.code, 'model_not_found');
  const refused = await t.throwsAsync(client.models.put('members', { ...definition, states: [] }), { instanceOf: BssApiError });
  t.is(refused?.code, 'validation_failed');
});
