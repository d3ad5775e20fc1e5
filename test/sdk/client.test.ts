import test from 'ava';
import { createRetryingFetch } from '../../sdk/createRetryingFetch.ts';
import { BssApiError, BssConnectionError, createBssClient, type RetryNotice } from '../../sdk/index.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { freePort } from '../helpers/freePort.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const keyOf = async (plan: string) => {
  const account = await buildAccount(app.services.pool, { plan });
  return (await buildApiKey(app.services.pool, account.id)).key;
};

/** A fetch that remembers what it sent, in front of the real one. */
const recordingFetch = () => {
  const sent: Request[] = [];
  return { sent, fetch: (request: Request) => (sent.push(request.clone()), fetch(request)) };
};

test('a failed call throws BssApiError with the envelope\'s code, status, message and request id', async (t) => {
  const client = createBssClient({ baseUrl: app.url, apiKey: await keyOf('free') });
  const error = await t.throwsAsync(client.simulate({ preset: 'finance', num_interactions: 5000 }), { instanceOf: BssApiError });
  t.is(error?.code, 'interactions_per_request_exceeded');
  t.is(error?.status, 403);
  t.like(error?.details, { limit: 1000, requested: 5000 });
  t.regex(error?.requestId ?? '', /^[0-9a-f-]{36}$/);
  t.regex(error?.message ?? '', /\S/);
  const unknown = await t.throwsAsync(client.getPreset('weather'), { instanceOf: BssApiError });
  t.is(unknown?.code, 'preset_not_found');
  t.is(unknown?.status, 404);
});

test('typed calls return the API\'s bodies', async (t) => {
  const client = createBssClient({ baseUrl: app.url, apiKey: await keyOf('pro') });
  t.deepEqual((await client.listPresets()).map((preset) => preset.name), ['education', 'finance', 'healthcare', 'mobile_app']);
  const result = await client.simulate({ preset: 'education', num_interactions: 12, seed: 8, profile: 'fast_accurate' });
  t.is(result.data.length, 12);
  t.is(result.profile, 'fast_accurate');
  t.is((await client.getUsage()).usage.requests, 1);
  const created = await client.createApiKey('sdk key');
  t.true((await client.listApiKeys()).some((key) => key.id === created.id && key.is_active));
  t.deepEqual(await client.revokeApiKey(created.id), { status: 'revoked', id: created.id });
});

test('POSTs carry a generated Idempotency-Key by default, and the caller\'s when given', async (t) => {
  const recorder = recordingFetch();
  const client = createBssClient({ baseUrl: app.url, apiKey: await keyOf('pro'), fetch: recorder.fetch });
  await client.simulate({ preset: 'finance', num_interactions: 2 });
  await client.simulate({ preset: 'finance', num_interactions: 2 });
  await client.simulate({ preset: 'finance', num_interactions: 2 }, { idempotencyKey: 'nightly-2026-11-23' });
  const keys = recorder.sent.map((request) => request.headers.get('idempotency-key'));
  t.regex(keys[0] ?? '', /^[0-9a-f-]{36}$/);
  t.not(keys[0], keys[1]);
  t.is(keys[2], 'nightly-2026-11-23');
});

test('a POST without an Idempotency-Key is never retried: the 429 goes straight back', async (t) => {
  const key = await keyOf('free');
  const post = () =>
    new Request(`${app.url}/v1/simulations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ preset: 'finance', num_interactions: 1 }),
    });
  const notices: RetryNotice[] = [];
  const retrying = createRetryingFetch({ onRetry: (notice) => notices.push(notice) });
  for (let index = 0; index < 5; index += 1) {
    t.is((await retrying(post())).status, 200);
  }
  const limited = await retrying(post());
  t.is(limited.status, 429);
  t.true(Number(limited.headers.get('retry-after')) >= 1);
  t.deepEqual(notices, []);
});

test('streamSimulation streams the body\'s bytes as the API sent them, and records() parses them', async (t) => {
  const client = createBssClient({ baseUrl: app.url, apiKey: await keyOf('pro') });
  const stream = await client.streamSimulation({ preset: 'finance', num_interactions: 40, seed: 11 }, 'json');
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream.bytes) {
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const parsed = JSON.parse(text) as { seed: number; data: unknown[] };
  t.is(parsed.seed, 11);
  t.is(parsed.data.length, 40);
  const again = await client.streamSimulation({ preset: 'finance', num_interactions: 40, seed: 11 }, 'json');
  const records = [];
  for await (const record of again.records()) {
    records.push(record);
  }
  t.deepEqual(records, parsed.data);
});

test('an unreachable service is a BssConnectionError that names the URL', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const error = await t.throwsAsync(createBssClient({ baseUrl: url }).listPresets(), { instanceOf: BssConnectionError });
  t.true(error?.message.startsWith(`cannot reach ${url}/v1/presets`));
});
