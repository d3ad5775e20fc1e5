import os from 'node:os';
import { loadConfig } from '../shared/config.ts';
import { describeError } from '../shared/errors/describeError.ts';
import { createLogger } from '../shared/logger.ts';
import { watchParent } from '../shared/process/watchParent.ts';
import { createRedis } from '../shared/redis/createRedis.ts';
import { closeRedis } from '../shared/redis/closeRedis.ts';
import { startPoolMetricsPublisher } from './startPoolMetricsPublisher.ts';
import { startSimulationWorker } from './startSimulationWorker.ts';
import { keepStartingStreamWorker } from './streams/keepStartingStreamWorker.ts';
import { startStreamWorker } from './streams/startStreamWorker.ts';

// A worker process: takes simulation jobs off the queue and runs them in its thread pool. The main thread
// only moves bytes, so lock renewal and the queue's heartbeat never wait on the engine.
const config = loadConfig();
const logger = createLogger(config.logLevel, 'worker');
const simulationWorker = startSimulationWorker({
  redis: config.redis,
  redisPrefix: config.redisPrefix,
  threads: config.workerThreads,
  concurrency: config.workerConcurrency,
  closeTimeoutMs: config.simulationTimeoutMs + 5_000,
  logger,
});
const streamWorker = keepStartingStreamWorker(
  () =>
    startStreamWorker({
      redis: config.redis,
      redisPrefix: config.redisPrefix,
      databaseUrl: config.databaseUrl,
      threads: 1,
      concurrency: config.streamWorkerConcurrency,
      sessionSecret: config.sessionSecret,
      webhookAllowPrivate: config.webhookAllowPrivate,
      logger,
    }),
  logger,
);
// Pool gauges go to Redis for the API's /metrics: this process has no HTTP server to scrape.
const metricsRedis = createRedis(config.redis, { role: 'worker:metrics', logger });
const poolMetrics = startPoolMetricsPublisher({
  redis: metricsRedis,
  prefix: config.redisPrefix,
  workerName: `${os.hostname()}:${process.pid}`,
  pool: simulationWorker.pool,
  logger,
});
logger.info({ threads: config.workerThreads, concurrency: config.workerConcurrency, prefix: config.redisPrefix }, 'worker started');
// Ready once simulations are taken: the stream side logs its own readiness (it also needs PostgreSQL).
simulationWorker.ready().then(
  () => logger.info('worker ready'),
  (error: unknown) => logger.error({ error: describeError(error) }, 'worker failed to start'),
);

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) {
    return;
  }
  stopping = true;
  logger.info({ signal }, 'worker stopping; finishing active jobs');
  // Active jobs end by their deadline at the latest; past that, something is stuck.
  setTimeout(() => {
    logger.error('worker shutdown deadline passed; exiting');
    process.exit(1);
  }, config.simulationTimeoutMs + 10_000).unref();
  // Stops taking jobs and finishes the active ones (their results delivered), then the threads and Redis.
  await Promise.all([simulationWorker.close(), streamWorker.close()]);
  await poolMetrics.stop();
  await closeRedis(metricsRedis);
  logger.info('worker stopped');
  process.exit(0);
};
const stop = (reason: string): void => {
  shutdown(reason).catch((error: unknown) => {
    logger.error({ error: describeError(error) }, 'worker shutdown failed');
    process.exit(1);
  });
};
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => stop(signal));
}
// Started by `npm start`'s supervisor (ops): stop with it, even when it was killed without a chance to say so.
if (process.channel !== undefined) {
  watchParent((reason) => stop(`supervisor gone (${reason})`));
}
