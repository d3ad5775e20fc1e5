import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { admitSimulation } from '../../api/limits/admitSimulation.ts';
import { publishAuthChange } from '../../shared/auth/authVersion.ts';
import { findPlanByName } from '../../shared/db/queries/plans.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller, runInput } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation, rawData, type SimulationResponse } from '../simulations/postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';
import type { Services } from '../../api/Services.ts';

// The domain clock, movable by the retention test.
let clock = new Date('2026-11-15T12:00:00.000Z');
let app: TestApp;
let worker: SimulationWorker;

test.before(async () => {
  app = await startTestApp({ now: () => clock });
  worker = await startTestWorker({ redisPrefix: app.redisPrefix });
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
});

const ledgerCount = async (services: Services, accountId: string): Promise<number> => {
  await ledgerWritten(services);
  return services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM simulations WHERE account_id = ${accountId}`);
};

const withKey = (key: string, idempotencyKey: string, headers: Record<string, string> = {}) => ({
  key,
  headers: { 'Idempotency-Key': idempotencyKey, ...headers },
});

/** Metadata without compute_ms, the one field a replay may change. */
const stableMetadata = (response: SimulationResponse) => {
  const { compute_ms: _ignored, ...rest } = response.body.metadata;
  return rest;
};

test('Idempotency-Key that is not 1–255 characters of visible ASCII answers 400 invalid_idempotency_key', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  for (const bad of ['', 'has space', 'x'.repeat(256), 'caf\u00e9']) {
    const response = await postSimulation(app, { preset: 'finance', num_interactions: 5 }, withKey(caller.key, bad));
    t.is(response.status, 400, JSON.stringify(bad));
    t.is(response.body.error.details.code, 'invalid_idempotency_key');
  }
  const longest = await postSimulation(app, { preset: 'finance', num_interactions: 5 }, withKey(caller.key, `!${'~'.repeat(254)}`));
  t.is(longest.status, 200);
  t.is(await ledgerCount(app.services, caller.accountId), 1);
});

test('a retry with the same key and the same body by value answers the first result again, replayed, and runs once', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  // No seed: the replay must give back the seed the first run drew.
  const first = await postSimulation(app, '{"preset":"healthcare","num_interactions":400}', withKey(caller.key, 'retry-1'));
  t.is(first.status, 200);
  t.is(first.headers.get('idempotent-replayed'), null);
  const again = await postSimulation(app, '{ "num_interactions" : 400,\n  "preset" : "healthcare" }', withKey(caller.key, 'retry-1'));
  t.is(again.status, 200);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(again.headers.get('content-type'), first.headers.get('content-type'));
  t.is(again.body.simulation_id, first.body.simulation_id);
  t.is(again.body.seed, first.body.seed);
  t.is(again.body.profile, first.body.profile);
  t.is(rawData(again.text), rawData(first.text));
  t.deepEqual(stableMetadata(again), stableMetadata(first));
  t.is(await ledgerCount(app.services, caller.accountId), 1);
});

// The rule of docs/fair-use.md#replays: a replay costs a
// rate entry and a slot while it streams, as a new run does, and no monthly quota.
test('a replay counts in the rate window and takes a concurrency slot, but costs no monthly quota', async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 3, monthly_requests: 1, max_concurrent_simulations: 1 });
  const body = { preset: 'finance', num_interactions: 20, seed: 3 };
  t.is((await postSimulation(app, body, withKey(caller.key, 'cheap'))).status, 200);
  // The month's one request is used, yet the run is replayed: twice, within the rate limit of 3.
  for (const remaining of [1, 0]) {
    const replay = await postSimulation(app, body, withKey(caller.key, 'cheap'));
    t.is(replay.status, 200);
    t.is(replay.headers.get('idempotent-replayed'), 'true');
    t.regex(replay.headers.get('ratelimit') ?? '', new RegExp(`^"rpm";r=${remaining};t=\\d+$`));
  }
  // Three requests in the window: the fourth, a replay, is rate limited like any request.
  const limited = await postSimulation(app, body, withKey(caller.key, 'cheap'));
  t.is(limited.status, 429);
  t.like(limited.body.error.details, { code: 'rate_limit_exceeded', limit: 3 });
  t.is(Number(limited.headers.get('retry-after')), limited.body.error.details.retry_after);
  t.is(limited.headers.get('idempotent-replayed'), null);
  const usage = await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${caller.key}` } }).then((response) => response.json() as Promise<any>);
  t.like(usage.usage, { requests: 1 });
  t.is(await ledgerCount(app.services, caller.accountId), 1);

  // Every slot taken by someone else: a replay waits its turn like a new run (429 with Retry-After).
  const roomy = await buildCaller(app.services.pool, { max_concurrent_simulations: 1 });
  t.is((await postSimulation(app, body, withKey(roomy.key, 'busy'))).status, 200);
  const plan = await findPlanByName(app.services.pool, roomy.plan);
  if (plan === null) {
    t.fail('no plan');
    return;
  }
  const held = await admitSimulation(app.services, { accountId: roomy.accountId, plan, requestId: 'slot-holder', run: runInput(roomy.accountId, 1) });
  t.truthy(held.simulationId);
  const refused = await postSimulation(app, body, withKey(roomy.key, 'busy'));
  t.is(refused.status, 429);
  t.like(refused.body.error.details, { code: 'concurrency_limit_exceeded', limit: 1 });
  t.is(Number(refused.headers.get('retry-after')), refused.body.error.details.retry_after);
  t.is(await ledgerCount(app.services, roomy.accountId), 1);
});

test("a replay of a run larger than the account's current per-request maximum answers 403, idempotent or from history, counted by the rate limiter", async (t) => {
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 100, max_interactions_per_request: 1000 });
  const body = { preset: 'finance', num_interactions: 500, seed: 5 };
  const first = await postSimulation(app, body, withKey(caller.key, 'shrunk'));
  t.is(first.status, 200);
  // The plan shrinks (as when the account moves to a smaller plan), announced as set-plan does.
  await app.services.pool.query(sql.type(z.object({}))`UPDATE plans SET max_interactions_per_request = 100 WHERE name = ${caller.plan}`);
  await publishAuthChange(app.services.redis, app.redisPrefix, caller.accountId);
  const replays = [await postSimulation(app, body, withKey(caller.key, 'shrunk'))];
  const history = await fetch(`${app.url}/v1/simulations/${first.body.simulation_id}/records`, { headers: { Authorization: `Bearer ${caller.key}` } });
  const historyBody = (await history.json()) as any;
  t.is(replays[0]?.status, 403);
  t.like(replays[0]?.body.error.details, { code: 'interactions_per_request_exceeded', limit: 100, requested: 500 });
  t.is(replays[0]?.headers.get('idempotent-replayed'), null);
  t.is(history.status, 403);
  t.like(historyBody.error.details, { code: 'interactions_per_request_exceeded', limit: 100, requested: 500 });
  // Each refusal took its place in the rate window: the first run, then the two refused replays.
  t.regex(history.headers.get('ratelimit') ?? '', /^"rpm";r=97;t=\d+$/);
});

test('the same key with a different body, path or Accept answers 422 idempotency_key_reused', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const body = { preset: 'education', num_interactions: 10, seed: 9 };
  t.is((await postSimulation(app, body, withKey(caller.key, 'reuse'))).status, 200);
  const differentBody = await postSimulation(app, { ...body, seed: 10 }, withKey(caller.key, 'reuse'));
  t.is(differentBody.status, 422);
  t.is(differentBody.body.error.details.code, 'idempotency_key_reused');
  const differentAccept = await postSimulation(app, body, withKey(caller.key, 'reuse', { Accept: 'text/csv' }));
  t.is(differentAccept.status, 422);
  t.is(differentAccept.body.error.details.code, 'idempotency_key_reused');
  const differentPath = await fetch(`${app.url}/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${caller.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'reuse' },
    body: JSON.stringify(body),
  });
  t.is(differentPath.status, 422);
  t.is(((await differentPath.json()) as any).error.details.code, 'idempotency_key_reused');
  t.is(await ledgerCount(app.services, caller.accountId), 1);
});

test('keys are scoped to the account: another account with the same key and body runs its own simulation', async (t) => {
  const [one, two] = await Promise.all([buildCaller(app.services.pool, {}), buildCaller(app.services.pool, {})]);
  const body = { preset: 'mobile_app', num_interactions: 10, seed: 1 };
  const first = await postSimulation(app, body, withKey(one.key, 'shared-name'));
  const second = await postSimulation(app, body, withKey(two.key, 'shared-name'));
  t.is(first.status, 200);
  t.is(second.status, 200);
  t.is(second.headers.get('idempotent-replayed'), null);
  t.not(second.body.simulation_id, first.body.simulation_id);
});

test('a first attempt that failed keeps nothing: the same key may be used again and runs anew', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const invalid = await postSimulation(app, { preset: 'astrology', num_interactions: 10 }, withKey(caller.key, 'failed-first'));
  t.is(invalid.status, 422);
  t.is(invalid.body.error.details.code, 'validation_failed');
  const retried = await postSimulation(app, { preset: 'finance', num_interactions: 10 }, withKey(caller.key, 'failed-first'));
  t.is(retried.status, 200);
  t.is(retried.headers.get('idempotent-replayed'), null);
});

test('what is kept per key is the run’s inputs, not its records: it does not grow with num_interactions', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const small = await postSimulation(app, { preset: 'finance', num_interactions: 1, seed: 2 }, withKey(caller.key, 'small'));
  const large = await postSimulation(app, { preset: 'finance', num_interactions: 20_000, seed: 2 }, withKey(caller.key, 'large'));
  t.is(small.status, 200);
  t.is(large.status, 200);
  const sizes = await app.services.pool.any(sql.type(z.object({ idempotency_key: z.string(), size: z.number() }))`
    SELECT idempotency_key, octet_length(response::text) AS size FROM idempotency_keys WHERE account_id = ${caller.accountId}
  `);
  const size = Object.fromEntries(sizes.map((row) => [row.idempotency_key, row.size]));
  t.true((size.large ?? Infinity) <= (size.small ?? 0) + 8, JSON.stringify(size));
  const replay = await postSimulation(app, { preset: 'finance', num_interactions: 20_000, seed: 2 }, withKey(caller.key, 'large'));
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.is(rawData(replay.text), rawData(large.text));
});

test('simultaneous replays of one key, right after the first answer, all answer the same result and run nothing new', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const body = { preset: 'healthcare', num_interactions: 200, seed: 12 };
  const first = await postSimulation(app, body, withKey(caller.key, 'replays'));
  t.is(first.status, 200);
  // At once: the first run's job may still be in BullMQ, which must not stop a replay from answering.
  const replays = await Promise.all(Array.from({ length: 6 }, () => postSimulation(app, body, withKey(caller.key, 'replays'))));
  for (const response of replays) {
    t.is(response.status, 200);
    t.is(response.headers.get('idempotent-replayed'), 'true');
    t.is(response.body.simulation_id, first.body.simulation_id);
    t.is(rawData(response.text), rawData(first.text));
  }
  t.is(await ledgerCount(app.services, caller.accountId), 1);
});

test('requests without Idempotency-Key keep no idempotency record', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 5 }, { key: caller.key })).status, 200);
  const kept = await app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM idempotency_keys WHERE account_id = ${caller.accountId}
  `);
  t.is(kept, 0);
});

test.serial('a key is kept 24 hours: after that the same key runs anew, even with another body', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const body = { preset: 'finance', num_interactions: 5, seed: 1 };
  const first = await postSimulation(app, body, withKey(caller.key, 'day'));
  t.is(first.status, 200);
  const start = clock;
  try {
    clock = new Date(start.getTime() + 24 * 3600 * 1000 - 1);
    t.is((await postSimulation(app, { ...body, seed: 2 }, withKey(caller.key, 'day'))).status, 422);
    clock = new Date(start.getTime() + 24 * 3600 * 1000);
    const later = await postSimulation(app, { ...body, seed: 2 }, withKey(caller.key, 'day'));
    t.is(later.status, 200);
    t.is(later.headers.get('idempotent-replayed'), null);
    t.not(later.body.simulation_id, first.body.simulation_id);
  } finally {
    clock = start;
  }
});

test.serial('20 simultaneous requests with one key run once: 409 idempotency_key_in_use with Retry-After 1 while the first runs', async (t) => {
  // An app of its own without a worker, so the first request is still running while the others arrive.
  const idle = await startTestApp();
  t.teardown(() => idle.close());
  const caller = await buildCaller(idle.services.pool, {});
  const body = { preset: 'finance', num_interactions: 50, seed: 8 };
  const first = postSimulation(idle, body, withKey(caller.key, 'burst'));
  await eventually(async () => ((await idle.services.simulations.queue.getWaitingCount()) > 0 ? true : undefined), 5000, 20);
  const others = await Promise.all(Array.from({ length: 19 }, () => postSimulation(idle, body, withKey(caller.key, 'burst'))));
  for (const response of others) {
    t.is(response.status, 409);
    t.is(response.body.error.details.code, 'idempotency_key_in_use');
    t.is(response.headers.get('retry-after'), '1');
  }
  const late = await startTestWorker({ redisPrefix: idle.redisPrefix });
  t.teardown(() => late.close());
  const answered = await first;
  t.is(answered.status, 200);
  t.is(await ledgerCount(idle.services, caller.accountId), 1);
  const replay = await postSimulation(idle, body, withKey(caller.key, 'burst'));
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.is(replay.body.simulation_id, answered.body.simulation_id);
});

test.serial('20 simultaneous requests with one key and a worker running: one run, every 200 the same result', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const body = { preset: 'education', num_interactions: 300, seed: 77 };
  const responses = await Promise.all(Array.from({ length: 20 }, () => postSimulation(app, body, withKey(caller.key, 'race'))));
  const fresh = responses.filter((response) => response.status === 200 && response.headers.get('idempotent-replayed') === null);
  t.is(fresh.length, 1);
  for (const response of responses) {
    t.true(response.status === 200 || response.status === 409, String(response.status));
    if (response.status === 200) {
      t.is(response.body.simulation_id, fresh[0]?.body.simulation_id);
      t.is(rawData(response.text), rawData(fresh[0]?.text ?? ''));
    }
  }
  t.is(await ledgerCount(app.services, caller.accountId), 1);
});

test.serial('a first attempt that timed out keeps nothing: the same request with the same key runs anew', async (t) => {
  const idle = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '2000' } });
  t.teardown(() => idle.close());
  const caller = await buildCaller(idle.services.pool, {});
  const body = { preset: 'finance', num_interactions: 10, seed: 5 };
  const timedOut = await postSimulation(idle, body, withKey(caller.key, 'timeout'));
  t.is(timedOut.status, 504);
  const late = await startTestWorker({ redisPrefix: idle.redisPrefix });
  t.teardown(() => late.close());
  // A busy machine may time the retry out too (its worker is cold): that keeps nothing either, so retry.
  const retried = await eventually(async () => {
    const response = await postSimulation(idle, body, withKey(caller.key, 'timeout'));
    return response.status === 504 ? undefined : response;
  }, 30_000, 0);
  t.is(retried.status, 200);
  t.is(retried.headers.get('idempotent-replayed'), null);
  t.not(retried.body.simulation_id, undefined);
});

// With the output formats (h13 merged): a replay answers in the recorded format, streamed like the first.
test('a streamed NDJSON answer, a CSV answer and a Parquet answer are replayed byte for byte in their format, under the recorded Simulation-Id', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  for (const [accept, numInteractions] of [
    ['application/x-ndjson', 20_000],
    ['text/csv', 300],
    ['application/vnd.apache.parquet', 20_000],
  ] as const) {
    const body = { preset: 'finance', num_interactions: numInteractions };
    const first = await postSimulation(app, body, withKey(caller.key, `format-${accept}`, { Accept: accept }));
    t.is(first.status, 200, first.text);
    t.is(first.headers.get('idempotent-replayed'), null);
    const again = await postSimulation(app, body, withKey(caller.key, `format-${accept}`, { Accept: accept }));
    t.is(again.status, 200, again.text);
    t.is(again.headers.get('idempotent-replayed'), 'true');
    t.is(again.headers.get('content-type'), first.headers.get('content-type'));
    for (const name of ['simulation-id', 'simulation-preset', 'simulation-profile', 'simulation-seed', 'simulation-engine-version']) {
      t.is(again.headers.get(name), first.headers.get(name), name);
    }
    t.true(again.bytes.equals(first.bytes), `${accept}: the replayed body differs`);
    // The fingerprint holds Accept: the same key asking for another format is a different request.
    const otherFormat = await postSimulation(app, body, withKey(caller.key, `format-${accept}`, { Accept: 'application/json' }));
    t.is(otherFormat.status, 422);
    t.is(otherFormat.body.error.details.code, 'idempotency_key_reused');
  }
  t.is(await ledgerCount(app.services, caller.accountId), 3);
});

test('a streamed first attempt its client left mid-stream keeps nothing: the retry runs anew', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const body = JSON.stringify({ preset: 'finance', num_interactions: 200_000 });
  const headers = { Authorization: `Bearer ${caller.key}`, 'Content-Type': 'application/json', Accept: 'text/csv', 'Idempotency-Key': 'left-mid-stream' };
  const leave = new AbortController();
  const response = await fetch(`${app.url}/v1/simulations`, { method: 'POST', headers, body, signal: leave.signal });
  t.is(response.status, 200);
  const reader = response.body!.getReader();
  await reader.read();
  leave.abort();
  await reader.cancel().catch(() => {});
  // The run is settled failed and its claim released; then the same key runs anew (not a replay).
  await eventually(async () => {
    const count = await app.services.pool.oneFirst(
      sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM idempotency_keys WHERE account_id = ${caller.accountId}`,
    );
    return count === 0 ? true : undefined;
  });
  const retry = await postSimulation(app, { preset: 'finance', num_interactions: 20 }, withKey(caller.key, 'left-mid-stream', { Accept: 'text/csv' }));
  // A different body under the same key would be 422 if anything had been kept.
  t.is(retry.status, 200, retry.text);
  t.is(retry.headers.get('idempotent-replayed'), null);
  t.is(await ledgerCount(app.services, caller.accountId), 2);
});

test('a key kept by the previous version (the record under the wire names) is replayed as the first answer', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const body = { preset: 'education', num_interactions: 30, engine_version: '3', scenario: { events: [{ type: 'fatigue', sequence: 1, at_step: 2, duration: 3 }] } };
  const first = await postSimulation(app, body, withKey(caller.key, 'previous-version'));
  t.is(first.status, 200);
  // What an API process of the previous version kept for the same answer.
  const json = sql.fragment`${JSON.stringify({
    simulation_id: first.body.simulation_id,
    preset: 'education',
    profile: first.body.profile,
    seed: first.body.seed,
    num_interactions: 30,
    engine_version: first.body.metadata.service_version,
    format: 'json',
    scenario: first.body.scenario === null ? null : { events: first.body.scenario.events },
    timing: null,
    model: null,
  })}::jsonb`;
  const kept = await app.services.pool.query(sql.type(z.object({}))`
    UPDATE idempotency_keys SET response = ${json} WHERE account_id = ${caller.accountId} AND idempotency_key = 'previous-version'
  `);
  t.is(kept.rowCount, 1);
  const replayed = await postSimulation(app, body, withKey(caller.key, 'previous-version'));
  t.is(replayed.status, 200);
  t.is(replayed.headers.get('idempotent-replayed'), 'true');
  t.is(replayed.body.simulation_id, first.body.simulation_id);
  t.is(rawData(replayed.text), rawData(first.text));
  t.deepEqual(replayed.body.scenario, first.body.scenario);
  t.deepEqual(stableMetadata(replayed), stableMetadata(first));
  t.is(await ledgerCount(app.services, caller.accountId), 1);
});
