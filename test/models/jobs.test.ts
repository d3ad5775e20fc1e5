import { randomUUID } from 'node:crypto';
import test from 'ava';
import { Queue } from 'bullmq';
import { SIMULATION_QUEUE } from '../../shared/jobs/queueName.ts';
import { checkModelDefinition, modelDigest } from '../../shared/models/index.ts';
import { queuePrefix } from '../../shared/redis/queuePrefix.ts';
import { eventually } from '../helpers/eventually.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { connectTestRedis, TEST_REDIS } from '../helpers/testRedis.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { tinyModel } from './modelFixtures.ts';

// The worker trusts no job: a model's definition on the queue is checked again and must be the version
// its digest names, and a run without a model must name a preset. Anything else is failed at once.
let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const definition = tinyModel();
const digest = (() => {
  const checked = checkModelDefinition(definition).definition;
  if (checked === undefined) throw new Error('the fixture does not check');
  return modelDigest(checked);
})();

const job = (overrides: Record<string, unknown>) => ({
  simulationId: randomUUID(),
  preset: 'members',
  model: { name: 'members', version: 1, digest, definition },
  profile: 'steady',
  seed: 1,
  numInteractions: 10,
  serviceVersion: '3.0.0',
  apiVersion: '1.0.0',
  deadline: Date.now() + 30_000,
  replyTo: `${app.redisPrefix}:nobody-listens`,
  ...overrides,
});

test('model jobs whose definition does not check, is not its digest, or names another model, and preset jobs naming no preset, fail at once', async (t) => {
  const producer = connectTestRedis({ blocking: true });
  const queue = new Queue(SIMULATION_QUEUE, { connection: producer, prefix: queuePrefix(app.redisPrefix, TEST_REDIS) });
  t.teardown(async () => {
    await queue.close();
    producer.disconnect();
  });
  const bad: Record<string, [Record<string, unknown>, string]> = {
    'not-its-digest': [job({ model: { name: 'members', version: 1, digest: `sha256:${'0'.repeat(64)}`, definition } }), 'nothing to run'],
    'does-not-check': [job({ model: { name: 'members', version: 1, digest, definition: { ...definition, initial: 'Nowhere' } } }), 'nothing to run'],
    'another-name': [job({ preset: 'finance' }), 'invalid job data'],
    'no-such-preset': [job({ preset: 'members', model: undefined }), 'invalid job data'],
  };
  for (const [name, [data]] of Object.entries(bad)) {
    await queue.add('simulate', data, { jobId: `model-${name}` });
  }
  for (const [name, [, reason]] of Object.entries(bad)) {
    const failed = await eventually(async () => {
      const current = await queue.getJob(`model-${name}`);
      return (await current?.getState()) === 'failed' ? current : undefined;
    }, 20_000, 20);
    t.is(failed?.failedReason, reason, name);
  }
});
