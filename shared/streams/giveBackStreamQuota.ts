import type { RedisClient } from '../redis/createRedis.ts';

// Both processes give back (the API on cancel, the worker on failure), so the script lives in shared/.
// A missing counter is left missing: its rebuild reads the stream's charge from PostgreSQL, which the
// caller wrote first (db/queries/usage.ts readLedgerQuota).
const GIVE_BACK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if tonumber(ARGV[1]) ~= 0 then redis.call('HINCRBY', KEYS[1], 'requests', -tonumber(ARGV[1])) end
if tonumber(ARGV[2]) ~= 0 then redis.call('HINCRBY', KEYS[1], 'interactions', -tonumber(ARGV[2])) end
return 1`;

/** Gives back what an ended stream never delivered: the reservation minus its charge. */
export const giveBackStreamQuota = async (redis: RedisClient, quotaKey: string, requests: number, interactions: number): Promise<void> => {
  if (requests === 0 && interactions === 0) return;
  await redis.eval(GIVE_BACK, 1, quotaKey, requests, interactions);
};
