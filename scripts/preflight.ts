import type { Config } from '../shared/config.ts';
import { describeDatabaseProblem } from '../shared/db/describeDatabaseProblem.ts';
import { ensureDatabase } from '../shared/db/ensureDatabase.ts';
import { migrate } from '../shared/db/migrate.ts';
import { connectRedisOnce } from '../shared/redis/connectRedisOnce.ts';
import { describeRedisTarget } from '../shared/redis/RedisTarget.ts';

/**
 * Checks that PostgreSQL and Redis answer, creates the database if needed and applies migrations.
 * Returns one sentence saying what is missing and how to get it, or undefined when all is well.
 */
export const preflight = async (config: Config): Promise<{ problem?: string; applied: string[] }> => {
  try {
    await ensureDatabase(config.databaseUrl);
  } catch (error) {
    return { applied: [], problem: describeDatabaseProblem(error, config.databaseUrl) };
  }
  try {
    (await connectRedisOnce(config.redis, 'bss:preflight')).disconnect();
  } catch {
    const setting = config.redis.kind === 'cluster' ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
    return {
      applied: [],
      problem: `Redis is not reachable at ${describeRedisTarget(config.redis)}: start it (your system's Redis service, or \`redis-server\`) or point ${setting} at one.`,
    };
  }
  try {
    return { applied: await migrate(config.databaseUrl) };
  } catch (error) {
    return { applied: [], problem: describeDatabaseProblem(error, config.databaseUrl, 'migrate') };
  }
};
