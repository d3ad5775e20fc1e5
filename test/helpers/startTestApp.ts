import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { PassThrough } from 'node:stream';
import { buildApp } from '../../api/app.ts';
import { createHttpServer } from '../../api/createHttpServer.ts';
import { closeServices, createServices } from '../../api/createServices.ts';
import type { Services } from '../../api/Services.ts';
import { parseConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createTestDatabase, type TestDatabase } from './testDatabase.ts';
import { createRedisPrefix, deleteRedisPrefix, testRedisEnv } from './testRedis.ts';

export interface TestApp {
  /** Base URL of the app on an ephemeral loopback port, e.g. http://127.0.0.1:43121 */
  readonly url: string;
  readonly services: Services;
  readonly database: TestDatabase;
  readonly redisPrefix: string;
  /** Every log line the app wrote, for tests that check what must never be logged. */
  readonly logs: () => string;
  readonly close: () => Promise<void>;
}

export interface StartTestAppOptions {
  /** Extra environment, parsed by the real config schema. */
  readonly env?: Record<string, string>;
  readonly now?: () => Date;
  /** Reuse a database (for several app instances sharing one). */
  readonly database?: TestDatabase;
  readonly redisPrefix?: string;
}

/** The real app on port 0 against a fresh cloned database and a Redis prefix of its own. */
export const startTestApp = async (options: StartTestAppOptions = {}): Promise<TestApp> => {
  const database = options.database ?? (await createTestDatabase());
  const redisPrefix = options.redisPrefix ?? createRedisPrefix();
  const config = parseConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'info',
    // A test that names its own Redis (a server of its own, a proxy) gets exactly that one.
    ...(options.env?.REDIS_URL === undefined ? testRedisEnv() : {}),
    ...options.env,
  });
  const captured: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => captured.push(chunk.toString('utf8')));
  const logger = createLogger('info', 'api', stream);
  const services = await createServices(config, {
    redisPrefix,
    logger,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const server: Server = createHttpServer(buildApp(services), config, logger).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    database,
    redisPrefix,
    logs: () => captured.join(''),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeServices(services);
      if (options.redisPrefix === undefined) {
        await deleteRedisPrefix(redisPrefix);
      }
      if (options.database === undefined) {
        await database.drop();
      }
    },
  };
};
