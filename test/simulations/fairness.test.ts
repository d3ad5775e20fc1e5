import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { raceTimeout, TIMED_OUT } from '../../shared/async/raceTimeout.ts';
import { eventually } from '../helpers/eventually.ts';
import { nextJobEvent } from '../helpers/nextJobEvent.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// docs/fair-use.md#clients-that-leave-or-stop-reading: a client that stops reading.
const MILLION = 1_000_000;

const statusesOf = async (app: TestApp, accountId: string) => {
  await ledgerWritten(app.services);
  return app.services.pool.any(
    sql.type(z.object({ status: z.string(), charged_interactions: z.number().nullable() }))`
      SELECT status, charged_interactions FROM simulations WHERE account_id = ${accountId}
    `,
  );
};

/** Starts a streamed run and reads nothing of its body: its headers (the first bytes) are in when it resolves. */
const openUnread = async (app: TestApp, key: string, seed: number): Promise<Response> =>
  fetch(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
    body: JSON.stringify({ preset: 'finance', num_interactions: MILLION, seed }),
  });

test('a streamed run whose client takes no bytes for STREAM_STALL_TIMEOUT_MS is ended like a client that left: cancelled, charged for what was made, its body cut', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000', STREAM_STALL_TIMEOUT_MS: '500' } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  const completed = nextJobEvent(worker.worker, 'completed');

  const response = await openUnread(app, caller.key, 8);
  t.is(response.status, 200);
  const outcome = await raceTimeout(completed, 60_000);
  if (outcome === TIMED_OUT) {
    t.fail('the stalled run was not stopped');
    return;
  }
  // Its job completes `cancelled`, not failed (docs/operations.md).
  t.is(outcome[1], 'cancelled');
  const [row] = await eventually(async () => {
    const rows = await statusesOf(app, caller.accountId);
    return rows[0]?.status === 'cancelled' ? rows : undefined;
  });
  // Its first bytes had left: one request and the interactions made, fewer than asked.
  t.true((row?.charged_interactions ?? 0) > 0);
  t.true((row?.charged_interactions ?? MILLION) < MILLION);
  // What the client finally reads is cut, never a whole body.
  await t.throwsAsync(response.text());

  const next = await postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 1 }, { key: caller.key });
  t.is(next.status, 200, next.text);
});

test("one account's streams whose clients do not read hold no thread: another account's run is answered while they all still wait", async (t) => {
  // Stalls outlast the test: the hostile streams stay open the whole time.
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000', STREAM_STALL_TIMEOUT_MS: '110000' } });
  t.teardown(() => app.close());
  // One thread: a run holding a thread would stop every other run.
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1, concurrency: 16 });
  t.teardown(() => worker.close());
  const hostile = await buildCaller(app.services.pool, { max_concurrent_simulations: 8 });
  const other = await buildCaller(app.services.pool, {});

  const streams = await Promise.all(Array.from({ length: 8 }, (_, index) => openUnread(app, hostile.key, 100 + index)));
  t.teardown(() => Promise.all(streams.map((stream) => stream.body?.cancel().catch(() => undefined) ?? Promise.resolve())));
  t.deepEqual(
    streams.map((stream) => stream.status),
    Array.from({ length: 8 }, () => 200),
  );

  const response = await postSimulation(app, { preset: 'finance', num_interactions: 1000, seed: 2 }, { key: other.key });
  t.is(response.status, 200, response.text);
  t.is(response.body.data.length, 1000);
  // Answered while every hostile run is still in flight, waiting on its client: none is settled, the
  // history shows all eight queued.
  t.deepEqual(await statusesOf(app, hostile.accountId), []);
  const history = await fetch(`${app.url}/v1/simulations?limit=100`, { headers: { Authorization: `Bearer ${hostile.key}` } });
  const runs = ((await history.json()) as { data: { status: string }[] }).data;
  t.deepEqual(
    runs.map((run) => run.status),
    Array.from({ length: 8 }, () => 'queued'),
  );
});
