import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { openSlowReader } from '../helpers/openSlowReader.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// docs/fair-use.md, "Clients that leave or stop reading": a client that reads slowly is never cut off by
// the stall timeout, and one that holds its run on back-pressure until the deadline pays for what it got.

const ledgerOf = async (app: TestApp, accountId: string) => {
  await ledgerWritten(app.services);
  return app.services.pool.any(
    sql.type(z.object({ status: z.string(), charged_interactions: z.number().nullable() }))`
      SELECT status, charged_interactions FROM simulations WHERE account_id = ${accountId}
    `,
  );
};

const usageOf = async (app: TestApp, key: string): Promise<{ requests: number; interactions: number }> => {
  const response = await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await response.json()) as { usage: { requests: number; interactions: number } }).usage;
};

const ndjsonRun = (key: string, numInteractions: number, seed: number) => ({
  path: '/v1/simulations',
  headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
  body: JSON.stringify({ preset: 'finance', num_interactions: numInteractions, seed }),
});

test('a client that keeps reading at 256 KB/s is never taken for stalled: its body of several megabytes arrives whole although each burst the kernel takes is seconds apart', async (t) => {
  // The stall timeout is far shorter than reading the body takes; the deadline far longer.
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000', STREAM_STALL_TIMEOUT_MS: '2000' } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, {});

  // About 6 MB of NDJSON: the kernel's buffers take a few megabytes at once, the rest only at the pace.
  const reader = openSlowReader(app.url, ndjsonRun(caller.key, 40_000, 5), 256 * 1024);
  t.teardown(() => reader.close());
  const answer = await reader.closed;
  t.regex(answer.head, /^HTTP\/1\.1 200 /);
  t.true(answer.whole, `the body was cut after ${String(answer.bodyBytes)} bytes`);
  t.true(answer.bodyBytes > 5_000_000, `${String(answer.bodyBytes)} bytes`);
  const rows = await eventually(async () => {
    const found = await ledgerOf(app, caller.accountId);
    return found.length === 1 ? found : undefined;
  });
  t.deepEqual(rows, [{ status: 'completed', charged_interactions: 40_000 }]);
});

test('a client that stops reading after the head is taken for stalled once the kernel has delivered nothing more for the stall timeout: cancelled, charged, its body cut', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '120000', STREAM_STALL_TIMEOUT_MS: '2000' } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, {});

  const reader = openSlowReader(app.url, ndjsonRun(caller.key, 1_000_000, 7), 0);
  t.teardown(() => reader.close());
  const [row] = await eventually(async () => {
    const found = await ledgerOf(app, caller.accountId);
    return found.length === 1 ? found : undefined;
  }, 60_000);
  t.is(row?.status, 'cancelled');
  const charged = row?.charged_interactions ?? 0;
  t.true(charged > 0 && charged < 1_000_000, `${String(charged)} interactions charged`);
  reader.hurry();
  const answer = await reader.closed;
  t.regex(answer.head, /^HTTP\/1\.1 200 /);
  t.false(answer.whole);
});

test('a run whose deadline comes while it waits on its slow client is settled cancelled and charged one request and the interactions sent, not given back', async (t) => {
  // A short deadline and a stall timeout that never comes first: the deadline ends the run mid-stream.
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '8000', STREAM_STALL_TIMEOUT_MS: '110000' } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  // A warm thread (another account's run), so the run under test surely sends its first bytes in time.
  const warm = await buildCaller(app.services.pool, {});
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 10 }, { key: warm.key })).status, 200);
  const caller = await buildCaller(app.services.pool, {});

  const reader = openSlowReader(app.url, ndjsonRun(caller.key, 1_000_000, 6), 128 * 1024);
  t.teardown(() => reader.close());
  const [row] = await eventually(async () => {
    const found = await ledgerOf(app, caller.accountId);
    return found.length === 1 ? found : undefined;
  });
  // Settled: what the kernel still holds for the client is read at once.
  reader.hurry();
  const answer = await reader.closed;
  t.regex(answer.head, /^HTTP\/1\.1 200 /);
  // Cut at the deadline: never a body that looks whole.
  t.false(answer.whole);

  t.is(row?.status, 'cancelled');
  const charged = row?.charged_interactions ?? 0;
  t.true(charged > 0 && charged < 1_000_000, `${String(charged)} interactions charged`);
  t.deepEqual(await usageOf(app, caller.key), { requests: 1, interactions: charged });
});
