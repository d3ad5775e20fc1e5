import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/createRedis.ts';

// A version outlives any cached principal's use by far; when it expires every process reloads once.
const VERSION_TTL_S = 86_400;
// How long a change's pending mark holds without its signal (the change's process died, or its Redis link
// did between commit and signal): far longer than the one short transaction a change commits in. While
// it holds no process caches the account; the version was replaced when the mark was made.
const PENDING_TTL_S = 60;

/**
 * The Redis key of an account's credential version: a random token replaced whenever anything that
 * authentication decides changes (a key revoked or rolled, the account deactivated or activated, its plan
 * changed). The `{accountId}` hash tag puts it in the slot of the account's limit keys, so the admission
 * script can read it in the same call.
 */
export const authVersionKey = (prefix: string, accountId: string): string => `${prefix}:auth:{${accountId}}`;

/** The set of an account's changes in flight (marked, not yet signalled), beside its version. */
const pendingKey = (prefix: string, accountId: string): string => `${prefix}:auth-pending:{${accountId}}`;

const exec = async (transaction: ReturnType<RedisClient['multi']>): Promise<unknown[]> => {
  const replies = await transaction.exec();
  if (replies === null) {
    throw new Error('Redis aborted the transaction');
  }
  return replies.map(([error, reply]) => {
    if (error !== null) {
      throw error;
    }
    return reply;
  });
};

/**
 * Makes a change to what authentication decides exact on every API process, whatever Redis does between
 * the PostgreSQL commit and the signal after it (docs/fair-use.md#revocation-is-immediate-whatever-redis-does):
 *
 * 1. Before the change, its mark: the account's version is replaced (every principal cached so far is
 *    stale from here on) and the change joins the account's pending set, all in one transaction. While a
 *    change is pending no process caches the account: each request reads PostgreSQL (readAuthVersion).
 *    If Redis cannot take the mark, nothing is changed and the error goes to the caller (a 503).
 * 2. The change itself, committed in PostgreSQL.
 * 3. The signal: the change leaves the pending set and the version is replaced once more. If the signal
 *    fails (Redis unreachable, restarted or flushed in between), the change was committed all the same and
 *    stays exact: a pending mark keeps every process reading PostgreSQL until it expires, after which a
 *    process caches only what it reads from PostgreSQL past the commit; a Redis that lost its data has no
 *    version, which no cached principal matches. The failure goes to `onSignalFailure`, not the caller.
 *
 * The signal is sent whether the change succeeded or threw, so a refused change does not leave the
 * account uncached for long.
 */
export const changeAuthentication = async <T>(
  redis: RedisClient,
  prefix: string,
  accountId: string,
  change: () => Promise<T>,
  onSignalFailure: (error: unknown) => void,
): Promise<T> => {
  const token = randomUUID();
  const pending = pendingKey(prefix, accountId);
  await exec(
    redis
      .multi()
      .set(authVersionKey(prefix, accountId), randomUUID(), 'EX', VERSION_TTL_S)
      .sadd(pending, token)
      .expire(pending, PENDING_TTL_S),
  );
  try {
    return await change();
  } finally {
    await exec(redis.multi().srem(pending, token).set(authVersionKey(prefix, accountId), randomUUID(), 'EX', VERSION_TTL_S)).catch(onSignalFailure);
  }
};

/**
 * Announces a change that was made without a mark (a test's direct database write, say). Prefer
 * changeAuthentication, which stays exact when this signal fails.
 */
export const publishAuthChange = async (redis: RedisClient, prefix: string, accountId: string): Promise<void> => {
  await redis.set(authVersionKey(prefix, accountId), randomUUID(), 'EX', VERSION_TTL_S);
};

/**
 * The account's current version, created when Redis has none (never set, expired or lost), or undefined
 * while a change is pending: then nothing may be cached and PostgreSQL decides each request. Read it
 * BEFORE reading the credential from PostgreSQL: a change marked after this read replaces the version,
 * so a principal cached under this one is never trusted past the mark.
 */
export const readAuthVersion = async (redis: RedisClient, prefix: string, accountId: string): Promise<string | undefined> => {
  const fresh = randomUUID();
  const [previous, pending] = (await exec(
    redis.multi().set(authVersionKey(prefix, accountId), fresh, 'EX', VERSION_TTL_S, 'NX', 'GET').scard(pendingKey(prefix, accountId)),
  )) as [string | null, number];
  return pending > 0 ? undefined : (previous ?? fresh);
};
