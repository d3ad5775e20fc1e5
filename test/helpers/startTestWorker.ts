import { createLogger } from '../../shared/logger.ts';
import type { RedisTarget } from '../../shared/redis/RedisTarget.ts';
import { type SimulationWorker, startSimulationWorker } from '../../worker/startSimulationWorker.ts';
import { type ServiceProcess, spawnService } from './spawnService.ts';
import { TEST_POSTGRES_URL } from './testDatabase.ts';
import { TEST_REDIS, testRedisEnv } from './testRedis.ts';

export interface StartTestWorkerOptions {
  /** The app's prefix (TestApp.redisPrefix): API and worker must share it. */
  readonly redisPrefix: string;
  readonly threads?: number;
  /** Runs at once (WORKER_CONCURRENCY); the threads when absent. */
  readonly concurrency?: number;
  /** A Redis of the test's own; the test run's (one server or the cluster) by default. */
  readonly redisUrl?: string;
  /** A Redis Cluster of the test's own (test/helpers/startRedisCluster.ts). */
  readonly redis?: RedisTarget;
}

/** A real BullMQ Worker and a real piscina pool, in the test's own process. */
export const startTestWorker = async (options: StartTestWorkerOptions): Promise<SimulationWorker> => {
  const worker = startSimulationWorker({
    redis: options.redis ?? (options.redisUrl === undefined ? TEST_REDIS : { kind: 'single', url: options.redisUrl }),
    redisPrefix: options.redisPrefix,
    threads: options.threads ?? 1,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    // A test's runs end long before this; past it a close stuck in BullMQ must not keep the test process alive.
    closeTimeoutMs: 20_000,
    logger: createLogger('silent', 'worker'),
  });
  await worker.ready();
  return worker;
};

/** A worker process: no HTTP, so no url. */
export type WorkerProcess = Omit<ServiceProcess, 'url'>;

/**
 * `node worker/main.ts` as its own process, as production runs it, configured through the environment;
 * resolves once it logs that it takes jobs. A worker process also runs live streams, which read and write
 * their rows in PostgreSQL: `databaseUrl` is the test's database (TestApp.database.url) where streams are
 * tested, and otherwise the configured server's own database, which a worker only connects to.
 */
export const spawnWorkerProcess = (options: StartTestWorkerOptions & { readonly env?: Record<string, string>; readonly databaseUrl?: string }): Promise<WorkerProcess> =>
  spawnService({
    script: 'worker/main.ts',
    env: {
      DATABASE_URL: options.databaseUrl ?? TEST_POSTGRES_URL,
      ...(options.redisUrl === undefined ? testRedisEnv() : { REDIS_URL: options.redisUrl }),
      REDIS_PREFIX: options.redisPrefix,
      WORKER_THREADS: String(options.threads ?? 1),
      ...(options.concurrency === undefined ? {} : { WORKER_CONCURRENCY: String(options.concurrency) }),
      ...options.env,
    },
    readyLine: '"msg":"worker ready"',
  });
