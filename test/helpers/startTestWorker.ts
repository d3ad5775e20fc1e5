import { createLogger } from '../../shared/logger.ts';
import { type SimulationWorker, startSimulationWorker } from '../../worker/startSimulationWorker.ts';
import { type ServiceProcess, spawnService } from './spawnService.ts';
import { TEST_REDIS_URL } from './testRedis.ts';

export interface StartTestWorkerOptions {
  /** The app's prefix (TestApp.redisPrefix): API and worker must share it. */
  readonly redisPrefix: string;
  readonly threads?: number;
  readonly redisUrl?: string;
}

/** A real BullMQ Worker and a real piscina pool, in the test's own process. */
export const startTestWorker = async (options: StartTestWorkerOptions): Promise<SimulationWorker> => {
  const worker = startSimulationWorker({
    redisUrl: options.redisUrl ?? TEST_REDIS_URL,
    redisPrefix: options.redisPrefix,
    threads: options.threads ?? 1,
    logger: createLogger('silent', 'worker'),
  });
  await worker.ready();
  return worker;
};

/** A worker process: no HTTP, so no url. */
export type WorkerProcess = Omit<ServiceProcess, 'url'>;

/**
 * `node worker/main.ts` as its own process, as production runs it, configured through the environment;
 * resolves once it logs that it takes jobs.
 */
export const spawnWorkerProcess = (options: StartTestWorkerOptions & { readonly env?: Record<string, string> }): Promise<WorkerProcess> =>
  spawnService({
    script: 'worker/main.ts',
    env: {
      REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
      REDIS_PREFIX: options.redisPrefix,
      WORKER_THREADS: String(options.threads ?? 1),
      ...options.env,
    },
    readyLine: '"msg":"worker ready"',
  });
