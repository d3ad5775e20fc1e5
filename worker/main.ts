import { Worker } from 'bullmq';
import { loadConfig } from '../shared/config.ts';
import { describeError } from '../shared/errors/describeError.ts';
import { SIMULATION_QUEUE } from '../shared/jobs/queueName.ts';
import { createLogger } from '../shared/logger.ts';
import { createRedis } from '../shared/redis/createRedis.ts';

// Idle until the queue-backed simulations land: it connects and waits for jobs, so `npm start` already
// runs the real process topology.
const config = loadConfig();
const logger = createLogger(config.logLevel, 'worker');
const connection = createRedis(config.redisUrl, { role: 'worker', blocking: true });

const worker = new Worker(
  SIMULATION_QUEUE,
  async () => {
    throw new Error('simulations are not implemented yet');
  },
  { connection, prefix: 'bss', concurrency: config.workerThreads, autorun: true },
);
worker.on('error', (error) => logger.error({ error: describeError(error) }, 'worker error'));
logger.info({ threads: config.workerThreads }, 'worker started');

const shutdown = async (signal: string): Promise<void> => {
  logger.info({ signal }, 'worker stopping');
  await worker.close();
  connection.disconnect();
  process.exit(0);
};
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    shutdown(signal).catch(() => process.exit(1));
  });
}
