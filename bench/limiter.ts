// `npm run bench:limiter`: what the limits add to a simulation request (issue 6: one Redis round trip).
// Measures, in one run against the same Redis: a bare PING round trip (the floor of any Redis call) and
// the admission script (rate window + quotas + slot), each called sequentially, then reports the ratio.
import { randomUUID } from 'node:crypto';
import { parseConfig } from '../shared/config.ts';
import { createLogger } from '../shared/logger.ts';
import { admitSimulation } from '../api/limits/admitSimulation.ts';
import { limitKeys } from '../api/limits/limitKeys.ts';
import { ENGINE_VERSION } from '../shared/engine/index.ts';
import type { Services } from '../api/Services.ts';
import { createLimitScripts } from '../api/limits/createLimitScripts.ts';
import { createRedis } from '../shared/redis/createRedis.ts';
import { deleteRedisPrefix, TEST_REDIS } from '../test/helpers/testRedis.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 5000);
const prefix = `bench:${randomUUID().slice(0, 8)}`;
const logger = createLogger('silent', 'bench');
const redis = createRedis(TEST_REDIS, { role: 'test', logger });
await new Promise((resolve) => redis.once('ready', resolve));

// Only what admitSimulation touches: Redis and its scripts, the clock and the deadline setting. The quota counters are
// seeded first, so no call needs the ledger.
const services = {
  config: parseConfig({ NODE_ENV: 'test' }),
  redis,
  limitScripts: createLimitScripts(redis),
  redisPrefix: prefix,
  logger,
  now: () => new Date(),
} as unknown as Services;
const plan = {
  name: 'bench',
  requests_per_minute: 10_000_000,
  monthly_requests: 1_000_000_000,
  monthly_interactions: 1_000_000_000_000,
  max_interactions_per_request: 100_000,
  max_concurrent_simulations: 1_000,
  max_active_api_keys: 1,
};
const accountId = randomUUID();
const benchRun = {
  accountId,
  apiKeyId: null,
  sessionId: null,
  preset: 'finance',
  profile: 'balanced_investor',
  seed: 1,
  numInteractions: 1,
  serviceVersion: ENGINE_VERSION,
};
const { monthlyPeriod } = await import('../shared/limits/monthlyPeriod.ts');
await redis.hset(`${prefix}:quota:{${accountId}}:${monthlyPeriod(new Date()).key}`, 'requests', 0, 'interactions', 0);

const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const timeEach = async (work: () => Promise<unknown>): Promise<number> => {
  const samples: number[] = [];
  for (let index = 0; index < CALLS; index += 1) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return median(samples);
};

try {
  for (let index = 0; index < 500; index += 1) {
    await redis.ping();
  }
  const ping = await timeEach(() => redis.ping());
  const admit = await timeEach(async () => {
    const admission = await admitSimulation(services, { accountId, plan, requestId: randomUUID(), run: benchRun });
    if (admission.simulationId === undefined) {
      throw new Error(`refused: ${admission.refusal?.code}`);
    }
    // Keep the slot set and the in-flight hash small, as settled runs do; not part of the measured admission.
    const keys = limitKeys(prefix, accountId, admission.period.key);
    void redis.zrem(keys.slots, admission.simulationId);
    void redis.hdel(keys.inflight, admission.simulationId);
  });
  const ping2 = await timeEach(() => redis.ping());
  const floor = Math.min(ping, ping2);
  process.stdout.write(
    [
      `| call (median of ${CALLS}, sequential) | ms | × PING |`,
      '| --- | ---: | ---: |',
      `| Redis PING (baseline, same run) | ${floor.toFixed(3)} | 1.00 |`,
      `| admission script (rate + quotas + slot) | ${admit.toFixed(3)} | ${(admit / floor).toFixed(2)} |`,
      '',
    ].join('\n'),
  );
} finally {
  await deleteRedisPrefix(prefix);
  redis.disconnect();
}
