import type { DatabasePool } from 'slonik';
import { lockAccountForKeyCreation } from '../db/queries/accounts.ts';
import { countAuthenticatingApiKeys, insertApiKey, lockApiKey, revokeApiKey, setApiKeyExpiry } from '../db/queries/apiKeys.ts';
import { apiKeyNotFound, apiKeyNotRollable, apiKeyRollLimitReached } from '../errors/errors.ts';
import type { CreatedApiKey } from './createApiKey.ts';
import { digestApiKey } from './digestApiKey.ts';
import { generateApiKey } from './generateApiKey.ts';

export const DEFAULT_ROLL_EXPIRES_IN_S = 86_400;

export interface RolledApiKey extends CreatedApiKey {
  /** ISO timestamp from which the previous key fails like a revoked one. */
  readonly previousKeyExpiresAt: string;
  /** Whether the previous key was revoked at once (expires_in 0). */
  readonly previousKeyRevoked: boolean;
}

/**
 * Replaces a key with a new one of the same name; the old one works for `expiresInS` more seconds of
 * `now` (0: revoked at once, by the same query as DELETE). A roll does not count against the active-key
 * limit (it replaces a key rather than adding one), but the old key still authenticates during its grace
 * period, so a roll that would leave more than the limit plus one working keys is refused
 * (docs/fair-use.md#api-keys); with `expiresInS` 0 it adds none and is never refused for that. The account row
 * is locked first, as key creation locks it, so rolls and creations of one account take turns between the count
 * and the insert; then the old key's row, so of two rolls of one key one succeeds and the other finds it
 * rolled. Throws `api_key_not_found` (unknown or another account's) or `api_key_not_rollable` (revoked, rolled,
 * or one working key too many).
 */
export const rollApiKey = async (
  pool: DatabasePool,
  input: { accountId: string; id: string; expiresInS: number; now: Date },
): Promise<RolledApiKey> =>
  pool.transaction(async (transaction) => {
    const account = await lockAccountForKeyCreation(transaction, input.accountId);
    const previous = account === null ? null : await lockApiKey(transaction, { accountId: input.accountId, id: input.id });
    if (account === null || previous === null) {
      throw apiKeyNotFound();
    }
    if (previous.revoked_at !== null || previous.expires_at !== null) {
      throw apiKeyNotRollable();
    }
    const revokeNow = input.expiresInS === 0;
    if (!revokeNow) {
      const authenticating = await countAuthenticatingApiKeys(transaction, { accountId: input.accountId, now: input.now });
      // The new key adds one working key; the old one keeps working through its grace period.
      if (authenticating >= account.max_active_api_keys + 1) {
        throw apiKeyRollLimitReached(account.max_active_api_keys + 1);
      }
    }
    const { key, keyPrefix } = generateApiKey();
    const row = await insertApiKey(transaction, { accountId: input.accountId, name: previous.name, keyDigest: digestApiKey(key), keyPrefix });
    if (revokeNow) {
      await revokeApiKey(transaction, { accountId: input.accountId, id: previous.id });
    }
    const previousKeyExpiresAt = await setApiKeyExpiry(transaction, {
      id: previous.id,
      at: revokeNow ? null : new Date(input.now.getTime() + input.expiresInS * 1000),
    });
    return { id: row.id, name: row.name, key, keyPrefix: row.key_prefix, createdAt: row.created_at, previousKeyExpiresAt, previousKeyRevoked: revokeNow };
  });
