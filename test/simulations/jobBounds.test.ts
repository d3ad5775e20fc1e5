import { randomUUID } from 'node:crypto';
import test from 'ava';
import { Queue } from 'bullmq';
import { MAX_SIMULATION_TIMEOUT_MS, parseConfig } from '../../shared/config.ts';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { connectTestRedis, TEST_REDIS } from '../helpers/testRedis.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { postSimulation } from './postSimulation.ts';

// The job data a worker reads is bounded whatever wrote it (an old or foreign producer, a hand-made job):
// at most 1,000,000 interactions and a deadline no further ahead than the longest SIMULATION_TIMEOUT_MS
// allows (nor absurdly old), a scenario within the request's bounds. A job outside the bounds is failed
// at once, without running.
let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const validJob = () => ({
  simulationId: randomUUID(),
  preset: 'finance',
  profile: 'balanced_investor',
  seed: 1,
  numInteractions: 10,
  apiVersion: '1.0.0',
  deadline: Date.now() + 30_000,
  replyTo: `${app.redisPrefix}:nobody-listens`,
});

test('jobs asking too many interactions, with a deadline far ahead or long past, or a scenario out of bounds are failed at once without running', async (t) => {
  const producer = connectTestRedis({ blocking: true });
  const queue = new Queue(SIMULATION_QUEUE, { connection: producer, prefix: queuePrefix(app.redisPrefix, TEST_REDIS) });
  t.teardown(async () => {
    await queue.close();
    producer.disconnect();
  });
  const outOfBounds = {
    'too-many': { ...validJob(), numInteractions: 1_000_001 },
    'far-ahead': { ...validJob(), deadline: Date.now() + MAX_SIMULATION_TIMEOUT_MS + 24 * 3600_000 },
    'years-ahead': { ...validJob(), numInteractions: 1_000_000, deadline: Date.UTC(2999, 0, 1) },
    'absurdly-old': { ...validJob(), deadline: 1 },
    // A scenario is bounded as the request's is: 1 to 16 events, each within its bounds, nothing else.
    'seventeen-events': {
      ...validJob(),
      serviceVersion: '3.0.0',
      scenario: { events: Array.from({ length: 17 }, () => ({ type: 'market_crash', sequence: 1, at_step: 1, duration: 1, intensity: 1 })) },
    },
    'endless-event': { ...validJob(), serviceVersion: '3.0.0', scenario: { events: [{ type: 'rally', sequence: 'all', at_step: 1, duration: 1e9, intensity: 1 }] } },
  };
  for (const [name, data] of Object.entries(outOfBounds)) {
    await queue.add('simulate', data, { jobId: `bounds-${name}` });
  }
  for (const name of Object.keys(outOfBounds)) {
    const job = await eventually(async () => {
      const current = await queue.getJob(`bounds-${name}`);
      return (await current?.getState()) === 'failed' ? current : undefined;
    }, 20_000, 20);
    t.is(job?.failedReason, 'invalid job data', name);
    t.is(job?.attemptsMade, 1, name);
  }
  // The worker goes on serving.
  const caller = await buildCaller(app.services.pool, {});
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 5 }, { key: caller.key })).status, 200);
});

test('SIMULATION_TIMEOUT_MS is bounded by the same maximum the worker holds deadlines to', (t) => {
  t.is(parseConfig({ NODE_ENV: 'test', SIMULATION_TIMEOUT_MS: String(MAX_SIMULATION_TIMEOUT_MS) }).simulationTimeoutMs, MAX_SIMULATION_TIMEOUT_MS);
  t.throws(() => parseConfig({ NODE_ENV: 'test', SIMULATION_TIMEOUT_MS: String(MAX_SIMULATION_TIMEOUT_MS + 1) }));
});
