import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/createRedis.ts';

// A version outlives any cached principal's use by far; when it expires every process reloads once.
const VERSION_TTL_S = 86_400;

/**
 * The Redis key of an account's credential version: a random token replaced whenever anything that
 * authentication decides changes (a key revoked, the account deactivated or activated, its plan changed).
 * The `{accountId}` hash tag puts it in the slot of the account's limit keys, so the admission script can
 * read it in the same call.
 */
export const authVersionKey = (prefix: string, accountId: string): string => `${prefix}:auth:{${accountId}}`;

/**
 * Announces a change to every API process. Call it after the change committed in PostgreSQL and before
 * answering: a process that cached the account sees a different version on its next request and reloads.
 */
export const publishAuthChange = async (redis: RedisClient, prefix: string, accountId: string): Promise<void> => {
  await redis.set(authVersionKey(prefix, accountId), randomUUID(), 'EX', VERSION_TTL_S);
};

/**
 * The account's current version, created when Redis has none (never set, expired or lost). Read it BEFORE
 * reading the credential from PostgreSQL: a change committed after this read publishes a newer version,
 * so a principal cached under this one is never trusted past it.
 */
export const readAuthVersion = async (redis: RedisClient, prefix: string, accountId: string): Promise<string> => {
  const fresh = randomUUID();
  return (await redis.set(authVersionKey(prefix, accountId), fresh, 'EX', VERSION_TTL_S, 'NX', 'GET')) ?? fresh;
};
