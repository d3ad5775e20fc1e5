import type { DatabasePool } from 'slonik';
import { countActiveApiKeys, countAuthenticatingApiKeys, insertApiKey } from '../db/queries/apiKeys.ts';
import { lockAccountForKeyCreation } from '../db/queries/accounts.ts';
import { apiKeyLimitReached } from '../errors/errors.ts';
import { digestApiKey } from './digestApiKey.ts';
import { generateApiKey } from './generateApiKey.ts';

export interface CreatedApiKey {
  readonly id: string;
  readonly name: string;
  /** The raw secret, for the caller to show once; it exists nowhere else. */
  readonly key: string;
  readonly keyPrefix: string;
  readonly createdAt: string;
}

/**
 * Creates a key within the plan's active-key limit, and within the limit plus one of keys that still
 * authenticate (a rolled key in its grace period counts there: rolls and creations together never leave
 * more than that many working keys). The account row stays locked from the counts to the insert, so
 * concurrent creations and rolls take turns and never end above the limits. Throws
 * `api_key_limit_reached`, or returns null when the account does not exist. `now` judges grace periods.
 */
export const createApiKey = async (
  pool: DatabasePool,
  input: { accountId: string; name: string; now?: Date },
): Promise<CreatedApiKey | null> =>
  pool.transaction(async (transaction) => {
    const account = await lockAccountForKeyCreation(transaction, input.accountId);
    if (account === null) {
      return null;
    }
    const active = await countActiveApiKeys(transaction, input.accountId);
    if (active >= account.max_active_api_keys) {
      throw apiKeyLimitReached(account.max_active_api_keys);
    }
    const authenticating = await countAuthenticatingApiKeys(transaction, { accountId: input.accountId, now: input.now ?? new Date() });
    if (authenticating >= account.max_active_api_keys + 1) {
      throw apiKeyLimitReached(account.max_active_api_keys);
    }
    const { key, keyPrefix } = generateApiKey();
    const row = await insertApiKey(transaction, { accountId: input.accountId, name: input.name, keyDigest: digestApiKey(key), keyPrefix });
    return { id: row.id, name: row.name, key, keyPrefix: row.key_prefix, createdAt: row.created_at };
  });
