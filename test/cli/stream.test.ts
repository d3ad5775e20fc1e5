import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { tinyModel } from '../models/modelFixtures.ts';
import { runCli } from './spawnCli.ts';

let app: TestApp;
let key: string;

test.before(async () => {
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  key = (await buildApiKey(app.services.pool, account.id)).key;
});

test.after.always(async () => {
  await app?.close();
});

test('bss stream prints the envelopes as NDJSON as they come due, and --resume … --last-event-id reads on after a position', async (t) => {
  const args = ['stream', '--preset', 'mobile_app', '-n', '60', '--seed', '9', '--population', '5', '--start-time', '2026-01-01T00:00:00.000Z', '--speed', '100000', '--late-share', '0.2', '--max-delay', '600', '--duplicate-share', '0.1'];
  const run = await runCli(args, { url: app.url, key });
  t.is(run.code, 0, run.stderr);
  const lines = run.stdout.toString('utf8').trimEnd().split('\n');
  const envelopes = lines.map((line) => JSON.parse(line) as { position: number; duplicate: boolean; delay_ms: number; record: Record<string, unknown> });
  t.deepEqual(envelopes.map((envelope) => envelope.position), envelopes.map((_, index) => index + 1));
  t.is(envelopes.filter((envelope) => !envelope.duplicate).length, 60);
  const id = /stream ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
  t.truthy(id);
  const resumed = await runCli(['stream', '--resume', id!, '--last-event-id', '20'], { url: app.url, key });
  t.is(resumed.code, 0, resumed.stderr);
  t.deepEqual(resumed.stdout.toString('utf8').trimEnd().split('\n'), lines.slice(20));
});

test('bss stream --webhook prints the Stream with its secret, once', async (t) => {
  const server = http.createServer((_request, response) => response.writeHead(200).end()).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const run = await runCli(['stream', '--preset', 'finance', '-n', '5', '--speed', '0.01', '--webhook', url], { url: app.url, key });
    t.is(run.code, 0, run.stderr);
    const stream = JSON.parse(run.stdout.toString('utf8')) as { sink: { type: string; url: string }; webhook_secret: string };
    t.deepEqual([stream.sink.type, stream.sink.url], ['webhook', url]);
    t.regex(stream.webhook_secret, /^whsec_/);
  } finally {
    server.close();
  }
});

test('bss stream --model NAME@VERSION streams one of the account’s models; --preset with --model, or neither, is a usage error', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const own = (await buildApiKey(app.services.pool, account.id)).key;
  const headers = { Authorization: `Bearer ${own}`, 'Content-Type': 'application/json' };
  for (const max_steps of [40, 3]) {
    const put = await fetch(`${app.url}/v1/models/members`, { method: 'PUT', headers, body: JSON.stringify(tinyModel({ max_steps })) });
    t.is(put.status, 201);
  }
  const run = await runCli(['stream', '--model', 'members@1', '-n', '30', '--seed', '4', '--population', '3', '--start-time', '2026-01-01T00:00:00.000Z', '--speed', '100000'], { url: app.url, key: own });
  t.is(run.code, 0, run.stderr);
  const records = run.stdout.toString('utf8').trimEnd().split('\n').map((line) => (JSON.parse(line) as { record: Record<string, unknown> }).record);
  t.is(records.length, 30);
  t.deepEqual(Object.keys(records[0]!), ['sequence_id', 'interaction_id', 'event_time', 'state', 'balance', 'visits', 'channel', 'scenario_event']);
  const id = /stream ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
  const stream = (await (await fetch(`${app.url}/v1/streams/${id}`, { headers })).json()) as { request: { preset: string; model: { name: string; version: number } } };
  t.like(stream.request, { preset: 'members', model: { name: 'members', version: 1 } });
  for (const args of [['--model', 'members', '--preset', 'finance'], []]) {
    const refused = await runCli(['stream', ...args, '-n', '5'], { url: app.url, key: own });
    t.is(refused.code, 2, refused.stderr);
    t.regex(refused.stderr, /exactly one of --preset and --model/);
  }
});
