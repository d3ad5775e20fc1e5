import test from 'ava';
import { BssApiError, createBssClient, type StreamEnvelope } from '../../sdk/index.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTcpProxy } from '../helpers/startTcpProxy.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const clientOf = async (baseUrl = app.url) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  return createBssClient({ baseUrl, apiKey: (await buildApiKey(app.services.pool, account.id)).key });
};

const REQUEST = {
  preset: 'mobile_app',
  num_interactions: 200,
  seed: 4,
  population: 10,
  start_time: '2026-01-01T00:00:00.000Z',
  speed: 100_000,
  disorder: { late_share: 0.2, max_delay_s: 600, duplicate_share: 0.1 },
} as const;

const collect = async (events: AsyncIterable<StreamEnvelope>, stopAfter = Number.POSITIVE_INFINITY): Promise<StreamEnvelope[]> => {
  const got: StreamEnvelope[] = [];
  for await (const envelope of events) {
    got.push(envelope);
    if (got.length >= stopAfter) break;
  }
  return got;
};

test('streams.create/get/list/cancel, and events as an async iterator that resumes after a position', async (t) => {
  const client = await clientOf();
  const stream = await client.streams.create(REQUEST);
  t.is(stream.status, 'running');
  t.is((await client.streams.get(stream.id)).id, stream.id);
  t.deepEqual((await client.streams.list()).data.map((listed) => listed.id), [stream.id]);
  const whole = await collect(client.streams.events(stream.id));
  t.deepEqual(whole.map((envelope) => envelope.position), whole.map((_, index) => index + 1));
  t.is(whole.filter((envelope) => !envelope.duplicate).length, 200);
  const tail = await collect(client.streams.events(stream.id, { lastEventId: 50 }));
  t.deepEqual(tail, whole.slice(50));
  t.is((await client.streams.get(stream.id)).status, 'completed');
  const slow = await client.streams.create({ ...REQUEST, speed: 0.01 });
  t.is((await client.streams.cancel(slow.id)).status, 'cancelled');
  const missing = await t.throwsAsync(client.streams.get('00000000-0000-4000-8000-000000000000'), { instanceOf: BssApiError });
  t.is(missing?.code, 'stream_not_found');
});

test('events go on across a connection the network cuts: the iterator reconnects with Last-Event-ID and misses nothing', async (t) => {
  const proxy = await startTcpProxy(Number(new URL(app.url).port));
  try {
    const client = await clientOf(proxy.url);
    const stream = await client.streams.create({ ...REQUEST, seed: 8 });
    const got: StreamEnvelope[] = [];
    for await (const envelope of client.streams.events(stream.id)) {
      got.push(envelope);
      if (got.length === 40) proxy.resetOpen();
    }
    t.deepEqual(got.map((envelope) => envelope.position), got.map((_, index) => index + 1));
    t.is(got.filter((envelope) => !envelope.duplicate).length, 200);
  } finally {
    await proxy.close();
  }
});
