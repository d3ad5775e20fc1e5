import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { BssApiError, createBssClient } from '../../sdk/index.ts';
import { runCli } from '../cli/spawnCli.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { readArchive } from './readArchive.ts';

// The dataset through the TypeScript SDK (`dataset()`) and the CLI (`bss dataset`): the same archive as
// the API's, refusals as errors. The archive's contents are checked in dataset.test.ts.
let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const SCENARIO = { random: { types: ['market_crash', 'rally'], per_sequence: 2, duration: [5, 20], intensity: [0.5, 1.5] } };

const proClient = async () => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const key = (await buildApiKey(app.services.pool, account.id)).key;
  return { key, client: createBssClient({ baseUrl: app.url, apiKey: key }) };
};

const collect = async (bytes: AsyncIterable<Uint8Array>): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of bytes) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
};

type Manifest = { layout: string; placed: unknown[]; files: { path: string }[] };

test('sdk dataset() streams the archive; bss dataset writes the same archive to --out, whole', async (t) => {
  const { key, client } = await proClient();
  const run = await client.simulate({ preset: 'finance', num_interactions: 3000, seed: 21, scenario: SCENARIO });
  const dataset = await client.dataset(run.simulation_id, { layout: 'timeeval' });
  t.is(dataset.response.headers.get('content-type'), 'application/zip');
  const fromSdk = await readArchive(await collect(dataset.bytes));
  t.teardown(() => fromSdk.remove());
  const manifest = await fromSdk.json<Manifest>('manifest.json');
  t.deepEqual(manifest.placed, run.scenario?.placed);

  const directory = await mkdtemp(join(tmpdir(), 'bss-dataset-cli-'));
  const out = join(directory, 'set.zip');
  const cli = await runCli(['dataset', run.simulation_id, '--layout', 'timeeval', '--out', out], { url: app.url, key });
  t.is(cli.code, 0, cli.stderr);
  t.deepEqual(await readdir(directory), ['set.zip']);
  const fromCli = await readArchive(await readFile(out));
  t.teardown(() => fromCli.remove());
  t.deepEqual(fromCli.entries, fromSdk.entries);
  t.deepEqual(await fromCli.json<Manifest>('manifest.json'), manifest);

  const nab = await runCli(['dataset', run.simulation_id, '--layout', 'nab', '--field', 'daily_return', '--out', join(directory, 'nab.zip')], { url: app.url, key });
  t.is(nab.code, 0, nab.stderr);
  const fromNab = await readArchive(await readFile(join(directory, 'nab.zip')));
  t.teardown(() => fromNab.remove());
  t.like(await fromNab.json<{ columns: unknown }>('manifest.json'), { columns: { value: 'daily_return' } });
});

test('a run without a scenario: the sdk throws BssApiError 422, the cli exits 1 naming the problem and writes no file', async (t) => {
  const { key, client } = await proClient();
  const run = await client.simulate({ preset: 'finance', num_interactions: 20, seed: 2 });
  const error = await t.throwsAsync(client.dataset(run.simulation_id, { layout: 'nab' }), { instanceOf: BssApiError });
  t.like(error, { status: 422, code: 'validation_failed' });
  const directory = await mkdtemp(join(tmpdir(), 'bss-dataset-cli-'));
  const cli = await runCli(['dataset', run.simulation_id, '--layout', 'nab', '--out', join(directory, 'set.zip')], { url: app.url, key });
  t.is(cli.code, 1, cli.stderr);
  t.regex(cli.stderr, /scenario/);
  t.deepEqual(await readdir(directory), []);
  const missing = await runCli(['dataset', run.simulation_id], { url: app.url, key });
  t.is(missing.code, 2, missing.stderr);
});
