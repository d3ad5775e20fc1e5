import { randomUUID } from 'node:crypto';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { sweepStaleSimulations } from '../../api/runs/sweepStaleSimulations.ts';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { buildCaller, runInput } from '../helpers/limitFixtures.ts';
import { admitSimulation } from '../../api/limits/admitSimulation.ts';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { findPlanByName } from '../../shared/db/queries/plans.ts';
import { sumCompletedUsage } from '../../shared/db/queries/usage.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from '../simulations/postSimulation.ts';

let app: TestApp;
let stopWorker: () => Promise<void>;

test.before(async () => {
  app = await startTestApp();
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  stopWorker = () => worker.close();
});

test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

test('a ledger row left queued by an API process of an earlier version that died mid-wait is swept to timed_out and its quota given back, once', async (t) => {
  const caller = await buildCaller(app.services.pool, { monthly_requests: 2 });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  // What a crashed process leaves: a ledger row still queued long after every deadline, and its
  // reservation in the Redis counters.
  const orphan = randomUUID();
  await app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start, created_at)
    VALUES (${orphan}, ${caller.accountId}, 'finance', 'balanced_investor', 1, 1, 'queued',
      ${monthlyPeriod(new Date()).start.toISOString()}::timestamptz, now() - interval '10 minutes')
  `);
  await app.services.redis.hincrby(`${app.redisPrefix}:quota:{${caller.accountId}}:${monthlyPeriod(new Date()).key}`, 'requests', 1);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 403);

  t.is(await sweepStaleSimulations(app.services), 1);
  t.is(await sweepStaleSimulations(app.services), 0);
  t.is((await findSimulation(app.services.pool, orphan))?.status, 'timed_out');
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 403);
});

/** A run as a crashed API process leaves it: admitted (slot, reservation, in-flight entry), its lease gone with the process. */
const orphanRun = async (accountId: string, numInteractions: number) => {
  const plan = await findPlanByName(app.services.pool, 'enterprise');
  if (plan === null) {
    throw new Error('no enterprise plan');
  }
  const admission = await admitSimulation(app.services, { accountId, plan, requestId: randomUUID(), run: runInput(accountId, numInteractions) });
  if (admission.simulationId === undefined) {
    throw new Error('not admitted');
  }
  return { id: admission.simulationId, keys: limitKeys(app.redisPrefix, accountId, admission.period.key) };
};

/** Moves an entry's lease into the past, as time would for a run whose process died long ago. */
const age = async (keys: { inflight: string }, id: string): Promise<void> => {
  const raw = await app.services.redis.hget(keys.inflight, id);
  const entry = JSON.parse(raw ?? '{}') as { leaseUntilMs: number };
  await app.services.redis.hset(keys.inflight, id, JSON.stringify({ ...entry, leaseUntilMs: Date.now() - 10 * 60_000 }));
};

const quotaOf = async (keys: { quota: string }) => {
  const quota = await app.services.redis.hgetall(keys.quota);
  return { requests: Number(quota.requests), interactions: Number(quota.interactions) };
};

test.serial('a run in flight on an API process that died is swept from Redis: a timed_out row, its reservation given back, once', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const { id, keys } = await orphanRun(caller.accountId, 40);
  t.deepEqual(await quotaOf(keys), { requests: 1, interactions: 40 });
  // Not stale yet: a live run is never swept.
  await sweepStaleSimulations(app.services);
  t.is(await findSimulation(app.services.pool, id), null);
  await age(keys, id);
  t.true((await sweepStaleSimulations(app.services)) >= 1);
  await sweepStaleSimulations(app.services);
  t.like(await findSimulation(app.services.pool, id), { status: 'timed_out', num_interactions: 40 });
  t.deepEqual(await quotaOf(keys), { requests: 0, interactions: 0 });
  t.is(await app.services.redis.hlen(keys.inflight), 0);
  t.is(await app.services.redis.zcard(keys.slots), 0, 'its slot is freed');
});

test.serial('a run settled in Redis whose process died before writing its row gets that row from the sweeper, charged once', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const { id, keys } = await orphanRun(caller.accountId, 25);
  // What settle.lua leaves before the row is written: the entry settled, with the row it leads to.
  const raw = JSON.parse((await app.services.redis.hget(keys.inflight, id)) ?? '{}') as Record<string, unknown>;
  const now = new Date().toISOString();
  const settled = { ...raw, state: 'settled', charged: { requests: 1, interactions: 25 }, settlement: { status: 'completed', startedAt: now, finishedAt: now, computeMs: 3, chargedInteractions: 25 } };
  t.true(await app.services.limitScripts.settle(keys, { runId: id, requests: 1, interactions: 25, entry: JSON.stringify(settled), ttlS: 3600 }));
  await age(keys, id);
  t.true((await sweepStaleSimulations(app.services)) >= 1);
  t.like(await findSimulation(app.services.pool, id), { status: 'completed', compute_ms: 3 });
  t.deepEqual(await quotaOf(keys), { requests: 1, interactions: 25 });
  t.is(await app.services.redis.hlen(keys.inflight), 0);
  t.like(await sumCompletedUsage(app.services.pool, caller.accountId, monthlyPeriod(new Date()).start), { requests: 1, interactions: 25 });
});

test.serial('an entry the previous version wrote (one-letter keys, the run under `id`) is swept the same way: a timed_out row, its reservation given back', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const { id, keys } = await orphanRun(caller.accountId, 30);
  // The same run as an API process of the previous version recorded it, its lease long past.
  const entry = JSON.parse((await app.services.redis.hget(keys.inflight, id)) ?? '{}') as { admittedUs: number; run: Record<string, unknown> };
  const { simulationId, ...run } = entry.run;
  const previous = { s: 'run', p: monthlyPeriod(new Date()).key, n: 30, t: entry.admittedUs, e: Date.now() - 10 * 60_000, r: { ...run, id: simulationId, scenario: null, timing: null, model: null } };
  await app.services.redis.hset(keys.inflight, id, JSON.stringify(previous));
  t.true((await sweepStaleSimulations(app.services)) >= 1);
  await sweepStaleSimulations(app.services);
  t.like(await findSimulation(app.services.pool, id), { status: 'timed_out', num_interactions: 30, profile: 'balanced_investor' });
  t.deepEqual(await quotaOf(keys), { requests: 0, interactions: 0 });
  t.is(await app.services.redis.hlen(keys.inflight), 0);
});

test.serial('a run the previous version holds in flight (one-letter keys) counts in a quota rebuilt from the ledger', async (t) => {
  const caller = await buildCaller(app.services.pool, {});
  const { id, keys } = await orphanRun(caller.accountId, 30);
  const entry = JSON.parse((await app.services.redis.hget(keys.inflight, id)) ?? '{}') as { admittedUs: number; leaseUntilMs: number; run: Record<string, unknown> };
  const { simulationId, ...run } = entry.run;
  const previous = { s: 'run', p: monthlyPeriod(new Date()).key, n: 30, t: entry.admittedUs, e: entry.leaseUntilMs, r: { ...run, id: simulationId, scenario: null, timing: null, model: null } };
  await app.services.redis.hset(keys.inflight, id, JSON.stringify(previous));
  // The counter is lost (its node failed over, say): the next admission rebuilds it from the ledger and the entries.
  await app.services.redis.del(keys.quota);
  const plan = await findPlanByName(app.services.pool, 'enterprise');
  if (plan === null) {
    t.fail('no enterprise plan');
    return;
  }
  const next = await admitSimulation(app.services, { accountId: caller.accountId, plan, requestId: randomUUID(), run: runInput(caller.accountId, 5) });
  t.truthy(next.simulationId);
  t.deepEqual(await quotaOf(keys), { requests: 2, interactions: 35 });
});
