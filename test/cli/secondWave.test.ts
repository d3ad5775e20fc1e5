import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createBssClient, type SimulationFormat } from '../../sdk/index.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { runCli } from './spawnCli.ts';

// The CLI and SDK against the endpoints of output formats (docs/formats.md), idempotent retries
// (docs/api.md#safe-retries-idempotency-key), key rolls (docs/api.md#api-keys), run history
// (docs/api.md#run-history-and-replay) and engine versions (docs/api.md#engine-versions).

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const caller = async (plan = 'enterprise') => {
  const account = await buildAccount(app.services.pool, { plan });
  const key = await buildApiKey(app.services.pool, account.id);
  return { url: app.url, key: key.key, keyId: key.id };
};

const ACCEPT: Record<SimulationFormat, string> = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv', parquet: 'application/vnd.apache.parquet' };

/** The API's body for the request in a format, as bytes. */
const apiBody = async (key: string, request: object, format: SimulationFormat): Promise<Buffer> => {
  const response = await fetch(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: ACCEPT[format] },
    body: JSON.stringify(request),
  });
  if (response.status !== 200) {
    throw new Error(`the API answered ${response.status}: ${await response.text()}`);
  }
  return Buffer.from(await response.arrayBuffer());
};

const tempFile = (name: string) => join(tmpdir(), `bss-cli-${randomBytes(6).toString('hex')}-${name}`);

for (const format of ['ndjson', 'csv', 'parquet'] as const) {
  test(`simulate --format ${format} writes to stdout exactly the API's ${format} body`, async (t) => {
    const target = await caller();
    const run = await runCli(['simulate', '--preset', 'healthcare', '--seed', '77', '-n', '500', '--format', format], target);
    t.is(run.code, 0, run.stderr);
    t.true(run.stdout.equals(await apiBody(target.key, { preset: 'healthcare', seed: 77, num_interactions: 500 }, format)));
  });

  test(`simulate --format ${format} --out FILE writes the API's ${format} body to the file`, async (t) => {
    const target = await caller();
    const file = tempFile(`run.${format}`);
    const run = await runCli(['simulate', '--preset', 'mobile_app', '--seed', '5', '-n', '20000', '--format', format, '--out', file], target);
    t.is(run.code, 0, run.stderr);
    t.is(run.stderr, '');
    t.true((await readFile(file)).equals(await apiBody(target.key, { preset: 'mobile_app', seed: 5, num_interactions: 20000 }, format)));
  });

  test(`the SDK's records() of a ${format} stream are the records of the JSON result`, async (t) => {
    const target = await caller();
    const client = createBssClient({ baseUrl: app.url, apiKey: target.key });
    const request = { preset: 'mobile_app', seed: 19, num_interactions: 300 };
    const json = await client.simulate(request);
    const stream = await client.streamSimulation(request, format);
    t.is(stream.simulation.seed, 19);
    t.is(stream.simulation.preset, 'mobile_app');
    const records = [];
    for await (const record of stream.records()) {
      records.push(record);
    }
    t.deepEqual(records, json.data);
  });
}

test('simulate --idempotency-key K twice gives the first run again and counts it once', async (t) => {
  const target = await caller('pro');
  const args = ['simulate', '--preset', 'finance', '-n', '50', '--format', 'ndjson', '--idempotency-key', 'cli-test-run-1'];
  const first = await runCli(args, target);
  const second = await runCli(args, target);
  t.is(first.code, 0, first.stderr);
  t.is(second.code, 0, second.stderr);
  t.true(first.stdout.equals(second.stdout));
  const usage = (await (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${target.key}` } })).json()) as { usage: { requests: number } };
  t.is(usage.usage.requests, 1);
});

test('keys roll ID gives a new key; with --expires-in 0 the old key stops at once', async (t) => {
  const target = await caller('free');
  const rolled = await runCli(['keys', 'roll', target.keyId, '--expires-in', '0', '--json'], target);
  t.is(rolled.code, 0, rolled.stderr);
  const created = JSON.parse(rolled.stdout.toString('utf8')) as { id: string; key: string; previous_key_expires_at: string; name: string };
  t.regex(created.key, /^bs_live_[A-Za-z0-9]{32}$/);
  t.is(created.name, 'test key');
  t.regex(created.previous_key_expires_at, /Z$/);
  const old = await runCli(['usage'], target);
  t.is(old.code, 1);
  t.regex(old.stderr, /code invalid_credentials, HTTP 401/);
  const fresh = await runCli(['keys', 'list'], { url: app.url, key: created.key });
  t.is(fresh.code, 0, fresh.stderr);
  t.regex(fresh.stdout.toString('utf8'), new RegExp(`^${target.keyId}\\s+test key\\s+\\S+\\s+no\\s`, 'm'));
});

test('keys roll of a revoked key exits 1 with api_key_not_rollable', async (t) => {
  const target = await caller('pro');
  const spare = await runCli(['keys', 'create', 'spare', '--json'], target);
  const spareId = (JSON.parse(spare.stdout.toString('utf8')) as { id: string }).id;
  t.is((await runCli(['keys', 'revoke', spareId], target)).code, 0);
  const run = await runCli(['keys', 'roll', spareId], target);
  t.is(run.code, 1);
  t.regex(run.stderr, /code api_key_not_rollable, HTTP 409/);
});

test('history lists the runs newest first; --json is the API body; --limit pages', async (t) => {
  const target = await caller('pro');
  const client = createBssClient({ baseUrl: app.url, apiKey: target.key });
  const runs = [];
  for (const seed of [1, 2, 3]) {
    runs.push(await client.simulate({ preset: 'education', seed, num_interactions: 5 }));
  }
  const json = await runCli(['history', '--limit', '2', '--json'], target);
  t.is(json.code, 0, json.stderr);
  const page = JSON.parse(json.stdout.toString('utf8')) as { data: Array<{ simulation_id: string }>; next_cursor: string | null };
  const api = await (await fetch(`${app.url}/v1/simulations?limit=2`, { headers: { Authorization: `Bearer ${target.key}` } })).json();
  t.deepEqual(page, api);
  t.deepEqual(page.data.map((run) => run.simulation_id), [runs[2]?.simulation_id, runs[1]?.simulation_id]);
  const table = await runCli(['history', '--limit', '2'], target);
  t.is(table.code, 0, table.stderr);
  const rows = table.stdout.toString('utf8').trim().split('\n');
  t.regex(rows[0] ?? '', /^CREATED\s+SIMULATION ID\s+PRESET/);
  t.true(rows[1]?.includes(runs[2]?.simulation_id ?? '-'));
  t.true(table.stderr.includes(`--cursor ${page.next_cursor}`));
  const next = await runCli(['history', '--limit', '2', '--cursor', page.next_cursor ?? '', '--json'], target);
  t.deepEqual((JSON.parse(next.stdout.toString('utf8')) as typeof page).data.map((run) => run.simulation_id), [runs[0]?.simulation_id]);
});

test('simulate --engine-version 1 runs engine 1; presets lists the engine versions', async (t) => {
  const target = await caller('pro');
  const run = await runCli(['simulate', '--preset', 'finance', '-n', '5', '--engine-version', '1'], target);
  t.is(run.code, 0, run.stderr);
  t.regex((JSON.parse(run.stdout.toString('utf8')) as { metadata: { service_version: string } }).metadata.service_version, /^1\./);
  const presets = await runCli(['presets'], target);
  t.regex(presets.stdout.toString('utf8'), /^finance\s+yes\s+balanced_investor\s+.+\s\d+\.\d+\.\d+/m);
  const unknown = await runCli(['simulate', '--preset', 'finance', '-n', '5', '--engine-version', '99'], target);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /code validation_failed, HTTP 422/);
});

test('simulate --start-time --order --population: a time-ordered run from that instant; engine 3 refuses them', async (t) => {
  const target = await caller('pro');
  const run = await runCli(
    ['simulate', '--preset', 'healthcare', '-n', '200', '--seed', '3', '--start-time', '2027-02-01T08:00:00Z', '--order', 'time', '--population', '12', '--format', 'ndjson'],
    target,
  );
  t.is(run.code, 0, run.stderr);
  const records = run.stdout.toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as { event_time: string; interaction_id: number });
  t.is(records.length, 200);
  t.true(records.every((record, i) => record.interaction_id === i + 1 && record.event_time >= '2027-02-01T08:00:00.000Z'));
  t.true(records.every((record, i) => i === 0 || record.event_time >= records[i - 1]!.event_time));
  const refused = await runCli(['simulate', '--preset', 'finance', '-n', '5', '--engine-version', '3', '--order', 'time'], target);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /code validation_failed, HTTP 422/);
});
