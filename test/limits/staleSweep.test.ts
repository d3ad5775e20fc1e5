import { randomUUID } from 'node:crypto';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { sweepStaleSimulations } from '../../api/simulations/sweepStaleSimulations.ts';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
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

test('a run left queued by an API process that died mid-wait is swept to timed_out and its quota given back, once', async (t) => {
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
