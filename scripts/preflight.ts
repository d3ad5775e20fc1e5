import { Redis } from 'ioredis';
import type { Config } from '../shared/config.ts';
import { ensureDatabase } from '../shared/db/ensureDatabase.ts';
import { migrate } from '../shared/db/migrate.ts';
import { redactUrl } from '../shared/db/redactUrl.ts';

/**
 * Checks that PostgreSQL and Redis answer, creates the database if needed and applies migrations.
 * Returns one sentence saying what is missing and how to get it, or undefined when all is well.
 */
export const preflight = async (config: Config): Promise<{ problem?: string; applied: string[] }> => {
  try {
    await ensureDatabase(config.databaseUrl);
  } catch {
    return {
      applied: [],
      problem: `PostgreSQL is not reachable at ${redactUrl(config.databaseUrl)}: start it (for example \`docker compose up -d postgres\`, or your system's PostgreSQL service) or point DATABASE_URL at one.`,
    };
  }
  const redis = new Redis(config.redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    return {
      applied: [],
      problem: `Redis is not reachable at ${redactUrl(config.redisUrl)}: start it (for example \`docker compose up -d redis\`, or \`redis-server\`) or point REDIS_URL at one.`,
    };
  } finally {
    redis.disconnect();
  }
  return { applied: await migrate(config.databaseUrl) };
};
