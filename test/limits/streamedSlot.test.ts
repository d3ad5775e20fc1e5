import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation, type SimulationResponse } from '../simulations/postSimulation.ts';
import { streamSimulation } from '../simulations/streamBody.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// A streamed run outlives its route handler: it must hold its concurrency slot until its stream has ended
// (or been cut), or a second run of the account could start while the first still streams. Each test
// stalls a large NDJSON body by not reading it: back-pressure, not timing, keeps the run in flight.

/** Far more than one chunk (256 KiB) and than the socket buffers between the API and this test. */
const LARGE = 200_000;
const NDJSON = 'application/x-ndjson';

let app: TestApp;
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;

test.before(async () => {
  // A deadline no stalled run of these tests comes near, even on a loaded machine.
  app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '300000' } });
  // Two threads: a stalled stream keeps its thread waiting, and one test runs a second run beside it.
  worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 2 });
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
});

interface StalledResponse {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly request: ClientRequest;
  readonly response: IncomingMessage;
  /** Newlines in the first chunk, already read. */
  readonly firstLines: number;
}

const countLines = (chunk: Buffer): number => {
  let count = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
    count++;
  }
  return count;
};

/**
 * Sends a request on a connection of its own, reads the first chunk of the body and stops reading: the
 * response stays paused, so the socket fills and the server's writes wait. The run stays in flight for as
 * long as the test wants, whatever the machine's speed.
 */
const openStalled = (init: { method: 'GET' | 'POST'; path: string; key: string; body?: unknown; headers?: Record<string, string> }): Promise<StalledResponse> =>
  new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const request = httpRequest(`${app.url}${init.path}`, {
      method: init.method,
      agent: false,
      headers: {
        Authorization: `Bearer ${init.key}`,
        Accept: NDJSON,
        ...init.headers,
        ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
      },
    });
    request.once('error', reject);
    request.once('response', (response) => {
      response.once('error', reject);
      const first = (chunk: Buffer): void => {
        response.pause();
        response.off('data', first);
        // Later errors (a cut or an abort) are the reader's to see.
        request.off('error', reject);
        request.on('error', () => {});
        response.off('error', reject);
        response.on('error', () => {});
        resolve({ status: response.statusCode ?? 0, headers: response.headers, request, response, firstLines: countLines(chunk) });
      };
      response.on('data', first);
      response.once('end', () => reject(new Error(`the body ended before a first chunk was read (status ${response.statusCode})`)));
    });
    request.end(payload);
  });

/** Reads the rest of a stalled body; resolves with its line count, rejects if the body is cut. */
const readToEnd = (stalled: StalledResponse): Promise<number> =>
  new Promise((resolve, reject) => {
    const { response } = stalled;
    let lines = stalled.firstLines;
    response.on('data', (chunk: Buffer) => {
      lines += countLines(chunk);
    });
    response.once('end', () => resolve(lines));
    response.once('close', () => {
      if (!response.complete) {
        reject(new Error('the body was cut'));
      }
    });
    response.resume();
  });

const usageOf = async (key: string): Promise<{ requests: number; interactions: number }> => {
  const response = await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await response.json()) as { usage: { requests: number; interactions: number } }).usage;
};

const ledgerOf = async (accountId: string) => {
  await ledgerWritten(app.services);
  return app.services.pool.any(sql.type(z.object({ status: z.string() }))`SELECT status FROM simulations WHERE account_id = ${accountId} ORDER BY created_at`);
};

const smallRun = (key: string, seed: number): Promise<SimulationResponse> => postSimulation(app, { preset: 'finance', num_interactions: 10, seed }, { key });

/** A run admitted once the account's slot is free: the slot may be freed just after the last byte. */
const runOnceFree = (key: string, seed: number): Promise<SimulationResponse> =>
  eventually(async () => {
    const response = await smallRun(key, seed);
    return response.status === 429 && response.body?.error?.details?.code === 'concurrency_limit_exceeded' ? undefined : response;
  }, 20_000, 50);

test.serial('a streamed POST holds its slot until its body has been read to the end', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });

  const first = await openStalled({ method: 'POST', path: '/v1/simulations', key: caller.key, body: { preset: 'finance', num_interactions: LARGE, seed: 1 } });
  // A test that fails mid-way does not leave its stalled stream holding a worker thread.
  t.teardown(() => first.request.destroy());
  t.is(first.status, 200);
  t.is(first.headers['content-type']?.split(';')[0], NDJSON);

  // The first run's handler has returned (its headers and first bytes are out), but it is still in flight.
  const second = await smallRun(caller.key, 2);
  t.is(second.status, 429, second.text);
  t.like(second.body.error.details, { code: 'concurrency_limit_exceeded', limit: 1 });

  // Read whole, the first run is complete and counted, and its slot is free.
  t.is(await readToEnd(first), LARGE);
  const third = await runOnceFree(caller.key, 3);
  t.is(third.status, 200, third.text);
  t.deepEqual(await ledgerOf(caller.accountId), [{ status: 'completed' }, { status: 'completed' }]);
  t.deepEqual(await usageOf(caller.key), { requests: 2, interactions: LARGE + 10 });
});

test.serial('a streamed history replay holds its slot until its body has been read to the end', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  const recorded = await streamSimulation(app.url, { key: caller.key, body: { preset: 'finance', num_interactions: LARGE, seed: 4 }, accept: NDJSON, needle: '\n' });
  t.is(recorded.status, 200);
  t.is(recorded.error, undefined);
  t.is(recorded.count, LARGE);
  const simulationId = recorded.headers.get('simulation-id') ?? '';
  const records = `/v1/simulations/${simulationId}/records`;
  // The recorded run's slot is free once its body was read (settlement may trail the last byte).
  t.is((await runOnceFree(caller.key, 5)).status, 200);

  const replay = await openStalled({ method: 'GET', path: records, key: caller.key });
  // A test that fails mid-way does not leave its stalled stream holding a worker thread.
  t.teardown(() => replay.request.destroy());
  t.is(replay.status, 200);
  t.is(replay.headers['simulation-id'], simulationId);

  // While the replay streams, neither a new run nor another replay gets the account's only slot.
  const run = await smallRun(caller.key, 6);
  t.is(run.status, 429, run.text);
  t.is(run.body.error.details.code, 'concurrency_limit_exceeded');
  const again = await fetch(`${app.url}${records}`, { headers: { Authorization: `Bearer ${caller.key}`, Accept: NDJSON } });
  t.is(again.status, 429);
  t.is(((await again.json()) as { error: { details: { code: string } } }).error.details.code, 'concurrency_limit_exceeded');

  t.is(await readToEnd(replay), LARGE);
  t.is((await runOnceFree(caller.key, 7)).status, 200);
  // A replay is not a new run: only the three POSTs that ran are counted.
  t.deepEqual(await usageOf(caller.key), { requests: 3, interactions: LARGE + 20 });
});

test.serial('a streamed history replay its client abandons frees its slot', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  const recorded = await streamSimulation(app.url, { key: caller.key, body: { preset: 'finance', num_interactions: LARGE, seed: 8 }, accept: NDJSON, needle: '\n' });
  t.is(recorded.count, LARGE);
  t.is((await runOnceFree(caller.key, 9)).status, 200);

  const replay = await openStalled({ method: 'GET', path: `/v1/simulations/${recorded.headers.get('simulation-id') ?? ''}/records`, key: caller.key });
  // A test that fails mid-way does not leave its stalled stream holding a worker thread.
  t.teardown(() => replay.request.destroy());
  t.is(replay.status, 200);
  t.is((await smallRun(caller.key, 10)).status, 429);
  replay.request.destroy();

  t.is((await runOnceFree(caller.key, 11)).status, 200);
  t.deepEqual(await usageOf(caller.key), { requests: 3, interactions: LARGE + 20 });
});

test.serial('a streamed POST its client abandons mid-stream frees its slot, is settled cancelled and counts what was made for it', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  t.is((await smallRun(caller.key, 12)).status, 200);
  const before = await usageOf(caller.key);
  t.deepEqual(before, { requests: 1, interactions: 10 });

  const first = await openStalled({ method: 'POST', path: '/v1/simulations', key: caller.key, body: { preset: 'finance', num_interactions: LARGE, seed: 13 } });
  // A test that fails mid-way does not leave its stalled stream holding a worker thread.
  t.teardown(() => first.request.destroy());
  t.is(first.status, 200);
  t.is((await smallRun(caller.key, 14)).status, 429);
  first.request.destroy();

  // The abandoned run had sent its first bytes: settled cancelled, one request and the interactions made
  // (some, not all); its slot is free.
  await eventually(async () => ((await ledgerOf(caller.accountId)).at(-1)?.status === 'cancelled' ? true : undefined), 20_000, 50);
  const charged = (await usageOf(caller.key)).interactions - before.interactions;
  t.true(charged > 0 && charged < LARGE, `${charged} interactions charged`);
  t.deepEqual(await usageOf(caller.key), { requests: 2, interactions: 10 + charged });
  const next = await runOnceFree(caller.key, 15);
  t.is(next.status, 200, next.text);
  t.deepEqual(await usageOf(caller.key), { requests: 3, interactions: 20 + charged });
});

// The rule of docs/fair-use.md#replays: an idempotent replay
// takes a concurrency slot while it streams, as the first request did, and frees it once read to the end.
test.serial('a streamed POST with an Idempotency-Key holds its slot; its idempotent replay holds one too while it streams', async (t) => {
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  const body = { preset: 'finance', num_interactions: LARGE, seed: 16 };
  const idempotencyKey = `slot-${caller.accountId}`;
  // The first request with the key is a new run: its stream, wrapped to keep the key once it ends, holds the slot.
  const recorded = await openStalled({ method: 'POST', path: '/v1/simulations', key: caller.key, body, headers: { 'Idempotency-Key': idempotencyKey } });
  t.teardown(() => recorded.request.destroy());
  t.is(recorded.status, 200);
  t.is((await smallRun(caller.key, 19)).status, 429);
  t.is(await readToEnd(recorded), LARGE);
  t.is((await runOnceFree(caller.key, 17)).status, 200);

  const replay = await openStalled({ method: 'POST', path: '/v1/simulations', key: caller.key, body, headers: { 'Idempotency-Key': idempotencyKey } });
  // A test that fails mid-way does not leave its stalled stream holding a worker thread.
  t.teardown(() => replay.request.destroy());
  t.is(replay.status, 200);
  t.is(replay.headers['idempotent-replayed'], 'true');

  // The replay holds the account's only slot while it streams: a new run waits its turn.
  const refused = await smallRun(caller.key, 18);
  t.is(refused.status, 429, refused.text);
  t.is(refused.body.error.details.code, 'concurrency_limit_exceeded');
  t.is(await readToEnd(replay), LARGE);
  t.is((await runOnceFree(caller.key, 18)).status, 200);
  // No monthly quota for the replay: the first run and the two small ones.
  t.deepEqual(await usageOf(caller.key), { requests: 3, interactions: LARGE + 20 });
});
