import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { createLogger } from '../../shared/logger.ts';
import { TEST_REDIS } from '../helpers/testRedis.ts';
import { startStreamWorker, type StreamWorker } from '../../worker/streams/startStreamWorker.ts';
import { readSse } from './readSse.ts';

let app: TestApp;
let worker: StreamWorker;

test.before(async () => {
  app = await startTestApp();
  worker = await startStreamWorker({
    redis: TEST_REDIS,
    redisPrefix: app.redisPrefix,
    databaseUrl: app.database.url,
    threads: 1,
    concurrency: 50,
    sessionSecret: app.services.config.sessionSecret,
    webhookAllowPrivate: true,
    retryBaseMs: 20,
    logger: createLogger('silent', 'worker'),
  });
  await worker.ready();
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
});

const caller = async (plan = 'enterprise') => {
  const account = await buildAccount(app.services.pool, { plan });
  const apiKey = await buildApiKey(app.services.pool, account.id);
  return { accountId: account.id, key: apiKey.key };
};

const call = async (key: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

const DISORDERED = {
  preset: 'mobile_app',
  num_interactions: 400,
  seed: 11,
  population: 20,
  start_time: '2026-01-01T00:00:00.000Z',
  speed: 100_000,
  disorder: { late_share: 0.3, max_delay_s: 3600, duplicate_share: 0.1 },
};

test('an SSE reader gets every envelope in order, labelled with its disorder, then `event: end` with the completed Stream', async (t) => {
  const me = await caller();
  const created = await call(me.key, 'POST', '/v1/streams', DISORDERED);
  t.is(created.status, 201);
  t.is(created.body['status'], 'running');
  t.is(created.body['request']['seed'], 11);
  t.is(created.body['webhook_secret'], undefined);
  const read = await readSse(`${app.url}${created.body['events_url']}`, me.key);
  t.is(read.status, 200);
  t.regex(read.contentType ?? '', /^text\/event-stream/);
  const envelopes = read.events.map((event) => JSON.parse(event.data) as { position: number; record: Record<string, unknown>; delay_ms: number; duplicate: boolean });
  t.deepEqual(envelopes.map((envelope) => envelope.position), envelopes.map((_, index) => index + 1));
  t.deepEqual(read.events.map((event) => event.id), envelopes.map((envelope) => envelope.position));
  const originals = envelopes.filter((envelope) => !envelope.duplicate);
  t.is(originals.length, 400);
  t.deepEqual(new Set(originals.map((envelope) => envelope.record['interaction_id'])).size, 400);
  // Late records come after records with later event times; each says by how much.
  t.true(envelopes.some((envelope) => envelope.delay_ms > 0));
  for (const envelope of envelopes.filter((e) => e.duplicate)) {
    const first = envelopes.find((e) => !e.duplicate && e.record['interaction_id'] === envelope.record['interaction_id'])!;
    t.true(first.position < envelope.position);
    t.deepEqual(first.record, envelope.record);
  }
  t.true(envelopes.some((envelope) => envelope.duplicate));
  for (const envelope of envelopes) {
    const delivered = Date.parse(envelope.record['event_time'] as string) + envelope.delay_ms;
    t.true(envelope.delay_ms >= 0 && delivered >= Date.parse('2026-01-01T00:00:00.000Z'));
  }
  const end = JSON.parse(read.end ?? '{}') as Record<string, unknown>;
  t.is(end['status'], 'completed');
  t.is(end['delivered'], envelopes.length);
  const got = await call(me.key, 'GET', `/v1/streams/${created.body['id']}`);
  t.is(got.body['status'], 'completed');
});

test('Last-Event-ID (header or query) resumes after position N, byte-identical to an uninterrupted read; several readers read one stream', async (t) => {
  const me = await caller();
  const created = await call(me.key, 'POST', '/v1/streams', { ...DISORDERED, seed: 12 });
  const url = `${app.url}${created.body['events_url']}`;
  const [whole, other] = await Promise.all([readSse(url, me.key), readSse(url, me.key)]);
  t.is(whole.raw, other.raw);
  const cut = whole.events[136]!;
  const resumed = await readSse(url, me.key, { lastEventId: 136 });
  const tail = whole.raw.slice(whole.raw.indexOf(`id: ${cut.id}\n`));
  t.is(resumed.raw, tail);
  const byQuery = await readSse(`${url}?last_event_id=136`, me.key);
  t.is(byQuery.raw, tail);
  // The same inputs deliver the same envelopes: a second stream of them reads the same bytes.
  const again = await call(me.key, 'POST', '/v1/streams', { ...DISORDERED, seed: 12 });
  const repeat = await readSse(`${app.url}${again.body['events_url']}`, me.key);
  t.deepEqual(repeat.events.map((event) => event.data), whole.events.map((event) => event.data));
});

test('a paced stream: events wait for their clock; the worker records them as due and completes the stream', async (t) => {
  const me = await caller();
  // mobile_app sessions: the first records within seconds of event time; at this speed the stream runs a few seconds.
  const created = await call(me.key, 'POST', '/v1/streams', { preset: 'mobile_app', num_interactions: 30, seed: 3, population: 5, speed: 20_000, start_time: '2026-01-01T00:00:00.000Z' });
  t.is(created.status, 201);
  const id = created.body['id'] as string;
  const done = await eventually(async () => {
    const got = await call(me.key, 'GET', `/v1/streams/${id}`);
    return got.body['status'] === 'completed' ? got.body : undefined;
  }, 60_000);
  t.is(done['delivered'], 30);
  t.true(Date.parse(done['finished_at'] as string) >= Date.parse(done['created_at'] as string));
});

test('streams are listed newest first; unknown ids are 404 stream_not_found; DELETE cancels, idempotently, and frees the concurrency', async (t) => {
  const me = await caller('free');
  const slow = await call(me.key, 'POST', '/v1/streams', { preset: 'finance', num_interactions: 5, speed: 0.01 });
  t.is(slow.status, 201);
  const refused = await call(me.key, 'POST', '/v1/streams', { preset: 'finance', num_interactions: 5 });
  t.is(refused.status, 429);
  t.is(refused.body['error']['details']['code'], 'concurrency_limit_exceeded');
  const listed = await call(me.key, 'GET', '/v1/streams');
  t.deepEqual(listed.body['data'].map((stream: { id: string }) => stream.id), [slow.body['id']]);
  const missing = await call(me.key, 'GET', '/v1/streams/00000000-0000-4000-8000-000000000000');
  t.is(missing.status, 404);
  t.is(missing.body['error']['details']['code'], 'stream_not_found');
  const other = await caller();
  t.is((await call(other.key, 'GET', `/v1/streams/${slow.body['id']}`)).status, 404);
  t.is((await call(other.key, 'DELETE', `/v1/streams/${slow.body['id']}`)).status, 404);
  const cancelled = await call(me.key, 'DELETE', `/v1/streams/${slow.body['id']}`);
  t.is(cancelled.status, 200);
  t.is(cancelled.body['status'], 'cancelled');
  const again = await call(me.key, 'DELETE', `/v1/streams/${slow.body['id']}`);
  t.is(again.body['status'], 'cancelled');
  const next = await call(me.key, 'POST', '/v1/streams', { preset: 'finance', num_interactions: 5, speed: 0.01 });
  t.is(next.status, 201);
  const read = await readSse(`${app.url}${slow.body['events_url']}`, me.key);
  t.is(JSON.parse(read.end ?? '{}')['status'], 'cancelled');
});

test('readers waiting on their clock learn of a DELETE: each gets `event: end` with the cancelled Stream and nothing more', async (t) => {
  const me = await caller();
  // At this speed the first event is hours away: the readers wait on their clocks.
  const slow = await call(me.key, 'POST', '/v1/streams', { preset: 'finance', num_interactions: 50, speed: 1, start_time: '2026-01-05T00:00:00.000Z' });
  t.is(slow.status, 201);
  const url = `${app.url}${slow.body['events_url']}`;
  // Each reader is connected once its first bytes (the opening comment) arrived.
  const connections: Promise<void>[] = [];
  const reads = [0, 1].map(() => {
    let connected: () => void = () => {};
    connections.push(new Promise<void>((resolve) => (connected = resolve)));
    return readSse(url, me.key, { onProgress: () => connected() });
  });
  await Promise.all(connections);
  t.is((await call(me.key, 'DELETE', `/v1/streams/${slow.body['id']}`)).status, 200);
  for (const read of await Promise.all(reads)) {
    t.deepEqual(read.events, []);
    const end = JSON.parse(read.end ?? '{}') as Record<string, unknown>;
    t.is(end['status'], 'cancelled');
    t.is(end['delivered'], 0);
  }
});

test('validation: an engine before 4 and disorder out of range are 422; more interactions than the plan allows per request is 403', async (t) => {
  const me = await caller();
  const old = await call(me.key, 'POST', '/v1/streams', { preset: 'finance', num_interactions: 5, engine_version: '3' });
  t.is(old.status, 422);
  const disorder = await call(me.key, 'POST', '/v1/streams', { preset: 'finance', num_interactions: 5, disorder: { late_share: 0.9 } });
  t.is(disorder.status, 422);
  const tooMany = await call(me.key, 'POST', '/v1/streams', { preset: 'finance', num_interactions: 10_000_000 });
  t.is(tooMany.status, 403);
});

test('creating a stream counts in the rate window like a simulation: RateLimit headers, then 429 rate_limit_exceeded with Retry-After; reads do not count', async (t) => {
  // The free plan: 5 requests a minute, one stream at a time.
  const me = await caller('free');
  const post = (body: unknown) =>
    fetch(`${app.url}/v1/streams`, { method: 'POST', headers: { Authorization: `Bearer ${me.key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const first = await post({ preset: 'finance', num_interactions: 10, speed: 100_000 });
  t.is(first.status, 201);
  t.regex(first.headers.get('ratelimit') ?? '', /;r=4;/);
  const created = (await first.json()) as { id: string };
  // Reads, lists and a cancel take no place in the window.
  for (let index = 0; index < 6; index += 1) {
    t.is((await call(me.key, 'GET', `/v1/streams/${created.id}`)).status, 200);
  }
  t.is((await call(me.key, 'GET', '/v1/streams')).status, 200);
  t.is((await call(me.key, 'DELETE', `/v1/streams/${created.id}`)).status, 200);
  // A body refused with 422 still keeps its place, as a simulation's does.
  for (let index = 0; index < 4; index += 1) {
    t.is((await post({ preset: 'finance', num_interactions: 10, engine_version: '3' })).status, 422);
  }
  const refused = await post({ preset: 'finance', num_interactions: 10, speed: 100_000 });
  t.is(refused.status, 429);
  const body = (await refused.json()) as { error: { details: { code: string; limit: number; retry_after: number } } };
  t.is(body.error.details.code, 'rate_limit_exceeded');
  t.is(body.error.details.limit, 5);
  t.true(body.error.details.retry_after >= 1);
  t.is(refused.headers.get('retry-after'), String(body.error.details.retry_after));
});
