import { sql } from 'slonik';
import { z } from 'zod';
import type { Services } from '../../Services.ts';

const CHECK_TIMEOUT_MS = 1000;

const withTimeout = async (check: Promise<unknown>): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
};

/** Both checks run at once, each bounded by 1 s, so /ready answers within about a second whatever fails. */
export const checkDependencies = async (services: Services): Promise<{ database: boolean; redis: boolean }> => {
  const [database, redis] = await Promise.all([
    withTimeout(services.pool.oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`)),
    withTimeout(services.redis.ping()),
  ]);
  return { database, redis };
};
