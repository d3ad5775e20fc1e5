import test from 'ava';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { ClientAbortedError } from '../../shared/errors/errors.ts';
import { buildAdmission, buildCaller, type TestAdmission } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// The lease of a run (api/runs/createRun.ts) against real Redis and PostgreSQL, without a
// worker: what it hands back is read from the limit keys and the ledger after every call.

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const NUM_INTERACTIONS = 7;

/** An admission through the real admit script: one request and its interactions reserved, a slot taken, the run in flight. */
const admit = async (): Promise<{ admission: TestAdmission; keys: ReturnType<typeof limitKeys> }> => {
  const caller = await buildCaller(app.services.pool, {});
  const admission = await buildAdmission(app.services, caller.accountId, NUM_INTERACTIONS);
  return { admission, keys: limitKeys(app.redisPrefix, caller.accountId, admission.period.key) };
};

const held = async (keys: ReturnType<typeof limitKeys>): Promise<{ requests: number; interactions: number; slots: number; inflight: number }> => {
  // Rows are written after settlement, and the keeper drops settled runs' entries in batches: let both finish.
  await ledgerWritten(app.services);
  const quota = await app.services.redis.hgetall(keys.quota);
  return {
    requests: Number(quota.requests),
    interactions: Number(quota.interactions),
    slots: await app.services.redis.zcard(keys.slots),
    inflight: await app.services.redis.hlen(keys.inflight),
  };
};

test('admission records the run in flight in Redis only: a slot, its reservation and its entry, no ledger row', async (t) => {
  const { admission, keys } = await admit();
  t.deepEqual(await held(keys), { requests: 1, interactions: NUM_INTERACTIONS, slots: 1, inflight: 1 });
  t.is(await findSimulation(app.services.pool, admission.simulationId), null);
});

test('a run released before it began gives back its quota and slot once, leaves no row, and can no longer begin', async (t) => {
  const { admission, keys } = await admit();
  await Promise.all([admission.lease.release(), admission.lease.release()]);
  t.deepEqual(await held(keys), { requests: 0, interactions: 0, slots: 0, inflight: 0 });
  t.throws(() => admission.lease.begin(), { instanceOf: ClientAbortedError });
  await admission.lease.release();
  await admission.lease.settle({ status: 'failed', startedAt: null, finishedAt: Date.now() });
  t.deepEqual(await held(keys), { requests: 0, interactions: 0, slots: 0, inflight: 0 });
  t.is(await findSimulation(app.services.pool, admission.simulationId), null);
});

test('a begun run its client left frees its slot at once; settling it cancelled gives back what was not made, once', async (t) => {
  const { admission, keys } = await admit();
  admission.lease.begin();
  // The client hung up: the slot goes, the quota waits for the run's settlement.
  await admission.lease.release();
  t.deepEqual(await held(keys), { requests: 1, interactions: NUM_INTERACTIONS, slots: 0, inflight: 1 });
  // A slot taken since by another run of the account is not touched by the settlement.
  await app.services.redis.zadd(keys.slots, Date.now() + 60_000, 'another-run');
  const cancelled = { status: 'cancelled', startedAt: Date.now(), finishedAt: Date.now(), records: 3 } as const;
  await Promise.all([admission.lease.settle(cancelled), admission.lease.settle(cancelled)]);
  await admission.lease.settle({ status: 'failed', startedAt: null, finishedAt: Date.now() });
  await admission.lease.release();
  t.deepEqual(await held(keys), { requests: 1, interactions: 3, slots: 1, inflight: 0 });
  t.like(await findSimulation(app.services.pool, admission.simulationId), { status: 'cancelled' });
});

test('a completed run keeps its quota and frees its slot once, however often it is settled and released; one row', async (t) => {
  const { admission, keys } = await admit();
  admission.lease.begin();
  const now = Date.now();
  const completed = { status: 'completed', body: Buffer.alloc(0), startedAt: now, finishedAt: now, computeMs: 1 } as const;
  await admission.lease.settle(completed);
  await Promise.all([admission.lease.release(), admission.lease.settle(completed)]);
  t.deepEqual(await held(keys), { requests: 1, interactions: NUM_INTERACTIONS, slots: 0, inflight: 0 });
  t.like(await findSimulation(app.services.pool, admission.simulationId), { status: 'completed', num_interactions: NUM_INTERACTIONS });
});

test('a failed run gives back its request and interactions, and its row says failed', async (t) => {
  const { admission, keys } = await admit();
  admission.lease.begin();
  await admission.lease.settle({ status: 'failed', startedAt: Date.now(), finishedAt: Date.now() });
  t.deepEqual(await held(keys), { requests: 0, interactions: 0, slots: 0, inflight: 0 });
  t.like(await findSimulation(app.services.pool, admission.simulationId), { status: 'failed' });
});
