import test from 'ava';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { ClientAbortedError } from '../../shared/errors/errors.ts';
import { ENGINE_VERSION } from '../../shared/engine/index.ts';
import type { SimulationAdmission } from '../../api/simulations/SimulationAdmission.ts';
import { buildAdmission, buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

// The lease of a run (api/simulations/createRunLease.ts) against real Redis and PostgreSQL, without a
// worker: what it hands back is read from the limit keys and the ledger after every call.

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const NUM_INTERACTIONS = 7;

/** An admission as the admit script leaves it: one request and its interactions reserved, a slot taken. */
const admit = async (): Promise<{ admission: SimulationAdmission; keys: ReturnType<typeof limitKeys> }> => {
  const caller = await buildCaller(app.services.pool, {});
  const admission = buildAdmission(app.services, caller.accountId, NUM_INTERACTIONS);
  const keys = limitKeys(app.redisPrefix, caller.accountId, admission.period.key);
  await app.services.redis.hset(keys.quota, 'requests', 1, 'interactions', NUM_INTERACTIONS);
  await app.services.redis.zadd(keys.slots, Date.now() + 60_000, admission.simulationId);
  return { admission, keys };
};

const held = async (keys: ReturnType<typeof limitKeys>): Promise<{ requests: number; interactions: number; slots: number }> => {
  const quota = await app.services.redis.hgetall(keys.quota);
  return { requests: Number(quota.requests), interactions: Number(quota.interactions), slots: await app.services.redis.zcard(keys.slots) };
};

const row = (admission: SimulationAdmission) => ({
  id: admission.simulationId,
  accountId: admission.accountId,
  apiKeyId: null,
  sessionId: null,
  preset: 'finance',
  profile: 'balanced_investor',
  seed: 1,
  numInteractions: NUM_INTERACTIONS,
  periodStart: admission.period.start.toISOString(),
  serviceVersion: ENGINE_VERSION,
});

test('a run released before it was recorded gives back its quota and slot once, and can no longer be recorded', async (t) => {
  const { admission, keys } = await admit();
  await Promise.all([admission.lease.release(), admission.lease.release()]);
  t.deepEqual(await held(keys), { requests: 0, interactions: 0, slots: 0 });
  await t.throwsAsync(admission.lease.record(row(admission)), { instanceOf: ClientAbortedError });
  await admission.lease.release();
  await admission.lease.settle({ status: 'failed', startedAt: null, finishedAt: Date.now() });
  t.deepEqual(await held(keys), { requests: 0, interactions: 0, slots: 0 });
  t.is(await findSimulation(app.services.pool, admission.simulationId), null);
});

test('a recorded run its client left frees its slot at once; settling it cancelled gives back what was not made, once', async (t) => {
  const { admission, keys } = await admit();
  await admission.lease.record(row(admission));
  // The client hung up: the slot goes, the quota waits for the run's settlement.
  await admission.lease.release();
  t.deepEqual(await held(keys), { requests: 1, interactions: NUM_INTERACTIONS, slots: 0 });
  // A slot taken since by another run of the account is not touched by the settlement.
  await app.services.redis.zadd(keys.slots, Date.now() + 60_000, 'another-run');
  const cancelled = { status: 'cancelled', startedAt: Date.now(), finishedAt: Date.now(), records: 3 } as const;
  await Promise.all([admission.lease.settle(cancelled), admission.lease.settle(cancelled)]);
  await admission.lease.settle({ status: 'failed', startedAt: null, finishedAt: Date.now() });
  await admission.lease.release();
  t.deepEqual(await held(keys), { requests: 1, interactions: 3, slots: 1 });
  t.like(await findSimulation(app.services.pool, admission.simulationId), { status: 'cancelled' });
});

test('a completed run keeps its quota and frees its slot once, however often it is settled and released', async (t) => {
  const { admission, keys } = await admit();
  await admission.lease.record(row(admission));
  const now = Date.now();
  const completed = { status: 'completed', body: Buffer.alloc(0), startedAt: now, finishedAt: now, computeMs: 1 } as const;
  await admission.lease.settle(completed);
  await Promise.all([admission.lease.release(), admission.lease.settle(completed)]);
  t.deepEqual(await held(keys), { requests: 1, interactions: NUM_INTERACTIONS, slots: 0 });
  t.like(await findSimulation(app.services.pool, admission.simulationId), { status: 'completed' });
});
