import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { spawnWorkerProcess } from '../helpers/startTestWorker.ts';
import { spawnApiProcess } from '../ops/spawnApiProcess.ts';
import { startTcpProxy } from '../helpers/startTcpProxy.ts';
import { EnvelopeStream } from '../../shared/streams/EnvelopeStream.ts';
import { readSse } from './readSse.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const caller = async () => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  return (await buildApiKey(app.services.pool, account.id)).key;
};

const getStream = async (key: string, id: string): Promise<Record<string, unknown>> =>
  (await (await fetch(`${app.url}/v1/streams/${id}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;

const BASE = {
  preset: 'mobile_app',
  num_interactions: 60,
  seed: 5,
  population: 5,
  start_time: '2026-01-01T00:00:00.000Z',
  disorder: { late_share: 0.2, max_delay_s: 600, duplicate_share: 0.1 },
};

/** The speed at which the stream's last event is due `seconds` after creation. */
const speedFor = (seconds: number): number => {
  const events = new EnvelopeStream({
    preset: 'mobile_app',
    profile: 'casual_user',
    seed: BASE.seed,
    numInteractions: BASE.num_interactions,
    serviceVersion: '4.0.0',
    scenario: null,
    startTime: Date.parse(BASE.start_time),
    population: BASE.population,
    speed: 1,
    disorder: BASE.disorder,
  });
  let last = 0;
  for (let envelope = events.next(); envelope !== undefined; envelope = events.next()) last = envelope.dueMs;
  return last / 1000 / seconds;
};

const create = async (baseUrl: string, key: string, speed: number): Promise<Record<string, string>> => {
  const response = await fetch(`${baseUrl}/v1/streams`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...BASE, speed }),
  });
  return (await response.json()) as Record<string, string>;
};

test.serial('a worker killed with SIGKILL mid-stream: another worker takes the stream on from its row and completes it; no event is lost', async (t) => {
  const key = await caller();
  const env = { DATABASE_URL: app.database.url };
  const victim = await spawnWorkerProcess({ redisPrefix: app.redisPrefix, env });
  const stream = await create(app.url, key, speedFor(8));
  // The victim runs the clock: it has recorded delivered events.
  await eventually(async () => ((await getStream(key, stream['id']!))['delivered'] as number) > 0 || undefined, 20_000);
  victim.child.kill('SIGKILL');
  await victim.exited;
  const heir = await spawnWorkerProcess({ redisPrefix: app.redisPrefix, env });
  try {
    const done = await eventually(async () => {
      const got = await getStream(key, stream['id']!);
      return got['status'] === 'running' ? undefined : got;
    }, 40_000);
    t.is(done['status'], 'completed');
    // Completed by the heir (no reader was there to complete it); every event is still readable.
    const read = await readSse(`${app.url}${stream['events_url']}`, key);
    t.is(done['delivered'], read.events.length);
    t.deepEqual(read.events.map((event) => event.id), read.events.map((_, index) => index + 1));
    t.true(read.events.filter((event) => !(JSON.parse(event.data) as { duplicate: boolean }).duplicate).length === BASE.num_interactions);
  } finally {
    heir.child.kill('SIGTERM');
    await heir.exited;
  }
});

test.serial('an API process killed mid-read: the reader resumes on another with Last-Event-ID, byte-identical to an uninterrupted read', async (t) => {
  const key = await caller();
  const api = await spawnApiProcess({ databaseUrl: app.database.url, redisPrefix: app.redisPrefix });
  const stream = await create(app.url, key, speedFor(6));
  const uninterrupted = readSse(`${app.url}${stream['events_url']}`, key);
  let seen = 0;
  const first = readSse(`${api.url}${stream['events_url']}`, key, { onProgress: (messages) => (seen = messages) });
  // Killed once the reader there has some events and the stream is still going.
  await eventually(() => seen >= 10 || undefined, 20_000);
  api.child.kill('SIGKILL');
  await api.exited;
  const before = await first;
  t.true(before.end === undefined);
  const lastId = before.events.at(-1)?.id ?? 0;
  const after = await readSse(`${app.url}${stream['events_url']}`, key, { lastEventId: lastId });
  const whole = await uninterrupted;
  const cut = whole.raw.indexOf(`id: ${lastId + 1}\n`);
  t.is(whole.raw.slice(0, cut), before.raw.slice(0, before.raw.lastIndexOf('\n\n') + 2).replace(/: keep-alive\n\n/g, ''));
  t.is(after.raw, whole.raw.slice(cut));
});

test.serial('a worker process whose PostgreSQL is unreachable at start runs simulations at once, and streams once PostgreSQL is reachable', async (t) => {
  const key = await caller();
  // PostgreSQL behind a proxy that forwards nowhere yet: every connection of the worker's stream side fails.
  const database = new URL(app.database.url);
  const proxy = await startTcpProxy(0);
  const postgresPort = Number(database.port || 5432);
  database.host = `127.0.0.1:${proxy.port}`;
  const worker = await spawnWorkerProcess({ redisPrefix: app.redisPrefix, databaseUrl: database.toString() });
  try {
    await eventually(() => worker.output().includes('stream worker could not start') || undefined, 30_000);
    const run = await fetch(`${app.url}/v1/simulations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ preset: 'finance', num_interactions: 50, seed: 3 }),
    });
    t.is(run.status, 200);
    t.is(((await run.json()) as { data: unknown[] }).data.length, 50);
    t.false(worker.output().includes('stream worker ready'));
    // PostgreSQL comes back: the stream side starts by itself and runs a stream to its end.
    proxy.forwardTo(postgresPort);
    await eventually(() => worker.output().includes('stream worker ready') || undefined, 60_000);
    const stream = await create(app.url, key, speedFor(4));
    t.truthy(stream["id"], JSON.stringify(stream));
    const done = await eventually(async () => {
      const got = await getStream(key, stream['id']!);
      return got['status'] === 'running' ? undefined : got;
    }, 40_000);
    t.is(done['status'], 'completed');
    t.false(/\n\s+at /.test(worker.output()), 'no stack trace in the log');
  } finally {
    await worker.stop();
    await proxy.close();
  }
});
