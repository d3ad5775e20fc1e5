import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { TEST_REDIS } from '../helpers/testRedis.ts';
import { createLogger } from '../../shared/logger.ts';
import { startStreamWorker, type StreamWorker } from '../../worker/streams/startStreamWorker.ts';
import { readSse } from './readSse.ts';

let app: TestApp;
let worker: StreamWorker;

interface Received {
  readonly body: string;
  readonly signature: string;
  readonly idempotencyKey: string;
}

/** A real local receiver: records every POST and answers what `answer` says for it (when it says). */
const startReceiver = async (answer: (index: number, body: string) => number | 'hang' | Promise<number>) => {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ body, signature: String(request.headers['bss-signature']), idempotencyKey: String(request.headers['idempotency-key']) });
      void Promise.resolve(answer(received.length - 1, body)).then((status) => {
        if (status !== 'hang') response.writeHead(status).end();
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const startWorker = (allowPrivate: boolean) =>
  startStreamWorker({
    redis: TEST_REDIS,
    redisPrefix: app.redisPrefix,
    databaseUrl: app.database.url,
    threads: 1,
    concurrency: 20,
    sessionSecret: app.services.config.sessionSecret,
    webhookAllowPrivate: allowPrivate,
    retryBaseMs: 2,
    logger: createLogger('silent', 'worker'),
  });

test.before(async () => {
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  worker = await startWorker(true);
  await worker.ready();
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
});

const createStream = async (body: Record<string, unknown>) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const key = (await buildApiKey(app.services.pool, account.id)).key;
  const response = await fetch(`${app.url}/v1/streams`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const created = (await response.json()) as Record<string, any>;
  const get = async () => (await (await fetch(`${app.url}/v1/streams/${created['id']}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as Record<string, any>;
  return { status: response.status, created, get, key };
};

/** The receiver's check of docs/streams.md: HMAC-SHA256 of "<t>.<body>" with the secret. */
const verify = (secret: string, signature: string, body: string): boolean => {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature);
  if (match === null) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
};

const STREAM = { preset: 'mobile_app', num_interactions: 120, seed: 21, population: 10, start_time: '2026-01-01T00:00:00.000Z', speed: 100_000, disorder: { late_share: 0.2, max_delay_s: 600, duplicate_share: 0.1 } };

test.serial('webhook: signed batches in order, one in flight; a refused batch is retried with the same Idempotency-Key and body and later batches wait', async (t) => {
  let inFlight = 0;
  let mostInFlight = 0;
  const receiver = await startReceiver((index) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    inFlight -= 1;
    // The second request (batch 2's first try) and the third (its second) are refused.
    return index === 1 || index === 2 ? 503 : 200;
  });
  try {
    const { status, created, get } = await createStream({ ...STREAM, sink: { type: 'webhook', url: receiver.url, batch_max: 25, batch_ms: 50 } });
    t.is(status, 201);
    const secret = created['webhook_secret'] as string;
    t.regex(secret, /^whsec_/);
    t.deepEqual(created['sink'], { type: 'webhook', url: receiver.url, batch_max: 25, batch_ms: 50 });
    const done = await eventually(async () => {
      const got = await get();
      return got['status'] === 'running' ? undefined : got;
    }, 60_000);
    t.is(done['status'], 'completed');
    t.true(receiver.received.every((request) => verify(secret, request.signature, request.body)));
    t.false(verify('whsec_other', receiver.received[0]!.signature, receiver.received[0]!.body));
    const bodies = receiver.received.map((request) => JSON.parse(request.body) as { stream_id: string; batch: number; events: { position: number }[] });
    // Batch 2 three times, the same key and bytes; then batch 3 only after it was acknowledged.
    t.deepEqual(bodies.slice(0, 5).map((body) => body.batch), [1, 2, 2, 2, 3]);
    t.is(receiver.received[1]!.body, receiver.received[3]!.body);
    t.deepEqual(receiver.received.slice(1, 4).map((request) => request.idempotencyKey), Array(3).fill(`${created['id']}:2`));
    const acknowledged = bodies.filter((_, index) => index !== 1 && index !== 2);
    const positions = acknowledged.flatMap((body) => body.events.map((event) => event.position));
    t.deepEqual(positions, positions.map((_, index) => index + 1));
    t.is(positions.length, done['delivered']);
    t.true(acknowledged.every((body) => body.events.length <= 25 && body.stream_id === created['id']));
    t.is(mostInFlight, 1);
  } finally {
    await receiver.close();
  }
});

test.serial('an SSE reader of a webhook stream (the console watching it) never ends it: a batch refused while the reader reaches the end is still retried and delivered, and the reader\'s end carries the Stream the worker completed', async (t) => {
  // The first batch is answered 503 only once the reader has read every event: the worker then retries
  // it after the reader reached the end, which must not have ended the stream.
  let release: (status: number) => void = () => {};
  const held = new Promise<number>((resolve) => {
    release = resolve;
  });
  const receiver = await startReceiver((index) => (index === 0 ? held : 200));
  try {
    const { created, get, key } = await createStream({ ...STREAM, disorder: undefined, sink: { type: 'webhook', url: receiver.url, batch_max: 10, batch_ms: 50 } });
    const read = await readSse(`${app.url}${created['events_url']}`, key, {
      onProgress: (messages) => {
        if (messages >= STREAM.num_interactions) release(503);
      },
    });
    t.is(read.events.length, STREAM.num_interactions);
    const end = JSON.parse(read.end ?? '{}') as Record<string, unknown>;
    t.is(end['status'], 'completed');
    const done = await get();
    t.is(done['status'], 'completed');
    const acknowledged = receiver.received.slice(1).flatMap((request) => (JSON.parse(request.body) as { events: { position: number }[] }).events.map((event) => event.position));
    t.deepEqual(acknowledged, read.events.map((event) => event.id), 'the webhook received every event the reader read, batch 1 again after its 503');
    t.is(done['delivered'], read.events.length);
  } finally {
    release(503);
    await receiver.close();
  }
});

test.serial('webhook: after the last of 10 tries the stream is failed with last_error', async (t) => {
  const receiver = await startReceiver(() => 500);
  try {
    const { get } = await createStream({ ...STREAM, sink: { type: 'webhook', url: receiver.url } });
    const done = await eventually(async () => {
      const got = await get();
      return got['status'] === 'running' ? undefined : got;
    }, 60_000);
    t.is(done['status'], 'failed');
    t.is(done['last_error']['code'], 'webhook_failed');
    t.regex(done['last_error']['message'], /HTTP 500/);
    t.is(receiver.received.length, 10);
    t.is(new Set(receiver.received.map((request) => request.body)).size, 1);
  } finally {
    await receiver.close();
  }
});

test.serial('SSRF: where private addresses are not allowed (the default in production), a webhook to a loopback, private, link-local or metadata address is 422, and refused at delivery by a worker that does not allow it', async (t) => {
  const refusing = await startTestApp({ database: app.database, redisPrefix: app.redisPrefix, env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
  try {
    const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
    const key = (await buildApiKey(app.services.pool, account.id)).key;
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:9/hook', 'http://localhost:9/hook']) {
      const response = await fetch(`${refusing.url}/v1/streams`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...STREAM, sink: { type: 'webhook', url } }),
      });
      t.is(response.status, 422, url);
    }
  } finally {
    await refusing.close();
  }
  // Created where private addresses are allowed, delivered by a worker that refuses them: nothing is sent.
  await worker.close();
  const strict = await startWorker(false);
  await strict.ready();
  const receiver = await startReceiver(() => 200);
  try {
    const { get } = await createStream({ ...STREAM, sink: { type: 'webhook', url: receiver.url } });
    const done = await eventually(async () => {
      const got = await get();
      return got['status'] === 'running' ? undefined : got;
    }, 60_000);
    t.is(done['status'], 'failed');
    t.regex(done['last_error']['message'], /does not resolve to an address/);
    t.is(receiver.received.length, 0);
  } finally {
    await receiver.close();
    await strict.close();
    worker = await startWorker(true);
  }
});
