import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { freePort } from '../helpers/freePort.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { runCli } from './spawnCli.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const caller = async (plan = 'enterprise') => {
  const account = await buildAccount(app.services.pool, { plan });
  const key = await buildApiKey(app.services.pool, account.id);
  return { url: app.url, key: key.key, keyId: key.id };
};

const getJson = async (path: string, key?: string): Promise<unknown> => {
  const response = await fetch(`${app.url}${path}`, key === undefined ? {} : { headers: { Authorization: `Bearer ${key}` } });
  return response.json();
};

/**
 * The API's JSON body for the same inputs, with the two values that differ from run to run
 * (`simulation_id`, `compute_ms`) taken from the CLI's output, so the rest is compared byte for byte.
 */
const apiBodyLike = async (cliOutput: string, request: object, key: string): Promise<string> => {
  const api = await postSimulation(app, request, { key });
  const cli = JSON.parse(cliOutput) as { simulation_id: string; metadata: { compute_ms: number } };
  return api.text
    .replace(api.body.simulation_id, cli.simulation_id)
    .replace(`"compute_ms":${api.body.metadata.compute_ms}`, `"compute_ms":${cli.metadata.compute_ms}`);
};

const tempFile = (name: string) => join(tmpdir(), `bss-cli-${randomBytes(6).toString('hex')}-${name}`);

test('presets prints the catalog as a table, and --json prints the API body', async (t) => {
  const target = { url: app.url };
  const table = await runCli(['presets'], target);
  t.is(table.code, 0, table.stderr);
  const lines = table.stdout.toString('utf8').trim().split('\n');
  t.regex(lines[0] ?? '', /^NAME\s+AVAILABLE\s+DEFAULT PROFILE\s+PROFILES/);
  t.deepEqual(lines.slice(1).map((line) => line.split(/\s+/)[0]), ['education', 'finance', 'healthcare', 'mobile_app']);
  t.regex(table.stdout.toString('utf8'), /finance\s+yes\s+balanced_investor\s+conservative_investor, balanced_investor/);
  const json = await runCli(['presets', '--json'], target);
  t.is(json.code, 0, json.stderr);
  t.deepEqual(JSON.parse(json.stdout.toString('utf8')), await getJson('/v1/presets'));
});

test('simulate writes to stdout the bytes of the API body (json is the default format)', async (t) => {
  const target = await caller();
  const run = await runCli(['simulate', '--preset', 'healthcare', '--profile', 'critical_care', '--seed', '42', '-n', '250'], target);
  t.is(run.code, 0, run.stderr);
  t.is(run.stderr, '');
  const output = run.stdout.toString('utf8');
  t.is(output, await apiBodyLike(output, { preset: 'healthcare', profile: 'critical_care', seed: 42, num_interactions: 250 }, target.key));
  t.is(JSON.parse(output).data.length, 250);
});

test('simulate --out FILE writes the same bytes to the file and nothing to stdout', async (t) => {
  const target = await caller();
  const file = tempFile('run.json');
  const run = await runCli(['simulate', '--preset', 'mobile', '--seed', '9', '--num-interactions', '300', '--format', 'json', '--out', file], target);
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout.length, 0);
  const written = await readFile(file, 'utf8');
  t.is(written, await apiBodyLike(written, { preset: 'mobile', seed: 9, num_interactions: 300 }, target.key));
  t.is(JSON.parse(written).preset, 'mobile_app');
});

test('usage prints the plan and this month\'s usage; --json prints the API body', async (t) => {
  const target = await caller('free');
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 7 }, { key: target.key })).status, 200);
  const table = await runCli(['usage'], target);
  t.is(table.code, 0, table.stderr);
  const text = table.stdout.toString('utf8');
  t.regex(text, /^plan\s+free$/m);
  t.regex(text, /^requests\s+1 of 100 \(99 left\)$/m);
  t.regex(text, /^interactions\s+7 of 10000 \(9993 left\)$/m);
  const json = await runCli(['usage', '--json'], target);
  t.is(json.code, 0, json.stderr);
  t.deepEqual(JSON.parse(json.stdout.toString('utf8')), await getJson('/v1/usage', target.key));
});

test('keys create, list and revoke manage the account\'s keys', async (t) => {
  const target = await caller('pro');
  const created = await runCli(['keys', 'create', 'ci runner', '--json'], target);
  t.is(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout.toString('utf8')) as { id: string; name: string; key: string; key_prefix: string };
  t.is(key.name, 'ci runner');
  t.regex(key.key, /^bs_live_[A-Za-z0-9]{32}$/);
  // The new key works: the CLI can use it.
  const usage = await runCli(['usage', '--json'], { url: app.url, key: key.key });
  t.is(usage.code, 0, usage.stderr);

  const listed = await runCli(['keys', 'list'], target);
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout.toString('utf8'), /^ID\s+NAME\s+PREFIX\s+ACTIVE\s+CREATED\s+LAST USED\s+REVOKED\s+EXPIRES$/m);
  t.regex(listed.stdout.toString('utf8'), new RegExp(`^${key.id}\\s+ci runner\\s+${key.key_prefix}\\s+yes\\s`, 'm'));

  const revoked = await runCli(['keys', 'revoke', key.id], target);
  t.is(revoked.code, 0, revoked.stderr);
  t.is(revoked.stdout.toString('utf8'), `revoked ${key.id}\n`);
  const list = JSON.parse((await runCli(['keys', 'list', '--json'], target)).stdout.toString('utf8')) as Array<{ id: string; is_active: boolean }>;
  t.false(list.find((entry) => entry.id === key.id)?.is_active);
  t.deepEqual(list, await getJson('/v1/api-keys', target.key));
});

test('keys create prints the new key once, in a table, and says it will not be shown again', async (t) => {
  const target = await caller('pro');
  const created = await runCli(['keys', 'create', 'laptop'], target);
  t.is(created.code, 0, created.stderr);
  t.regex(created.stdout.toString('utf8'), /^key\s+bs_live_[A-Za-z0-9]{32}$/m);
  t.regex(created.stdout.toString('utf8'), /^name\s+laptop$/m);
  t.regex(created.stderr, /not shown again/);
});

test('an API error exits 1 with the API\'s message and code on stderr', async (t) => {
  const target = await caller('free');
  const tooMany = await runCli(['simulate', '--preset', 'finance', '-n', '5000'], target);
  t.is(tooMany.code, 1);
  t.is(tooMany.stdout.length, 0);
  const refused = await postSimulation(app, { preset: 'finance', num_interactions: 5000 }, { key: target.key });
  t.true(tooMany.stderr.includes(refused.body.error.message));
  t.regex(tooMany.stderr, /code interactions_per_request_exceeded, HTTP 403, request [0-9a-f-]{36}/);

  const unknown = await runCli(['simulate', '--preset', 'weather', '-n', '5'], target);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /code validation_failed, HTTP 422/);
  t.regex(unknown.stderr, /preset: /);

  const badKey = await runCli(['usage'], { url: app.url, key: `bs_live_${'x'.repeat(32)}` });
  t.is(badKey.code, 1);
  t.regex(badKey.stderr, /code invalid_credentials, HTTP 401/);

  const noKey = await runCli(['keys', 'list'], { url: app.url });
  t.is(noKey.code, 1);
  t.regex(noKey.stderr, /code authentication_required, HTTP 401/);
  t.regex(noKey.stderr, /BSS_API_KEY/);

  const revokeUnknown = await runCli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], target);
  t.is(revokeUnknown.code, 1);
  t.regex(revokeUnknown.stderr, /code api_key_not_found, HTTP 404/);
  for (const run of [tooMany, unknown, badKey, noKey, revokeUnknown]) {
    t.false(run.stderr.includes('\u001b'), 'no escape codes when stderr is not a terminal');
  }
});

test('an unreachable service exits 1 and says which URL it could not reach', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const run = await runCli(['presets'], { url });
  t.is(run.code, 1);
  t.true(run.stderr.includes(`cannot reach ${url}/v1/presets`), run.stderr);
});

test('a malformed command line exits 2 without calling the API', async (t) => {
  const target = await caller('free');
  const malformed = [
    ['launch'],
    [],
    ['keys'],
    ['simulate', '-n', '10'],
    ['simulate', '--preset', 'finance'],
    ['simulate', '--preset', 'finance', '-n', 'ten'],
    ['simulate', '--preset', 'finance', '-n', '0'],
    ['simulate', '--preset', 'finance', '-n', '10', '--seed', '-1'],
    ['simulate', '--preset', 'finance', '-n', '10', '--format', 'xml'],
    ['simulate', '--preset', 'finance', '-n', '10', '--colour'],
    ['keys', 'create'],
    ['keys', 'roll', 'some-id', '--expires-in', '604801'],
    ['history', '--limit', '101'],
  ];
  for (const args of malformed) {
    const run = await runCli(args, target);
    t.is(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    t.is(run.stdout.length, 0, args.join(' '));
    t.not(run.stderr, '', args.join(' '));
  }
  // Nothing reached the API: no run was counted.
  t.like(await getJson('/v1/usage', target.key), { usage: { requests: 0, interactions: 0 } });
});

test('--help works on every command and exits 0', async (t) => {
  const commands = [[], ['presets'], ['simulate'], ['usage'], ['keys'], ['keys', 'list'], ['keys', 'create'], ['keys', 'revoke'], ['keys', 'roll'], ['history']];
  for (const command of commands) {
    const run = await runCli([...command, '--help'], { url: app.url });
    t.is(run.code, 0, command.join(' '));
    t.true(run.stdout.toString('utf8').startsWith(`Usage: bss${command.length === 0 ? '' : ` ${command.join(' ')}`} `), run.stdout.toString('utf8'));
  }
  const simulate = (await runCli(['simulate', '--help'], { url: app.url })).stdout.toString('utf8');
  for (const option of ['--preset', '--profile', '--seed', '-n, --num-interactions', '--format', '--out', '--idempotency-key', '--engine-version']) {
    t.true(simulate.includes(option), option);
  }
});
