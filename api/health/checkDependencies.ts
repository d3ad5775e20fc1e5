import { sql } from 'slonik';
import { raceTimeout } from '../../shared/async/raceTimeout.ts';
import { pingRedis } from '../../shared/redis/pingRedis.ts';
import { z } from 'zod';
import type { DatabasePool } from 'slonik';
import type { RedisClient } from '../../shared/redis/createRedis.ts';

const CHECK_TIMEOUT_MS = 1000;

const withTimeout = async (check: Promise<unknown>): Promise<boolean> =>
  (await raceTimeout(check.then(() => true, () => false), CHECK_TIMEOUT_MS)) === true;

/** Both checks run at once, each bounded by 1 s, so /ready answers within about a second whatever fails. */
export const checkDependencies = async (services: { readonly pool: DatabasePool; readonly redis: RedisClient }): Promise<{ database: boolean; redis: boolean }> => {
  const [database, redis] = await Promise.all([
    withTimeout(services.pool.oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`)),
    withTimeout(pingRedis(services.redis)),
  ]);
  return { database, redis };
};
