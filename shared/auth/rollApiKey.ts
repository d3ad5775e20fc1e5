import type { DatabasePool } from 'slonik';
import { insertApiKey, lockApiKey, revokeApiKey, setApiKeyExpiry } from '../db/queries/apiKeys.ts';
import { apiKeyNotFound, apiKeyNotRollable } from '../errors/errors.ts';
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
 * `now` (0: revoked at once, by the same query as DELETE). The old key's row stays locked from the check
 * to the update, so of two simultaneous rolls one succeeds and the other finds it rolled. A roll never
 * counts against the active-key limit: it replaces a key rather than adding one. Throws
 * `api_key_not_found` (unknown or another account's) or `api_key_not_rollable` (revoked or rolled).
 */
export const rollApiKey = async (
  pool: DatabasePool,
  input: { accountId: string; id: string; expiresInS: number; now: Date },
): Promise<RolledApiKey> =>
  pool.transaction(async (transaction) => {
    const previous = await lockApiKey(transaction, { accountId: input.accountId, id: input.id });
    if (previous === null) {
      throw apiKeyNotFound();
    }
    if (previous.revoked_at !== null || previous.expires_at !== null) {
      throw apiKeyNotRollable();
    }
    const { key, keyPrefix } = generateApiKey();
    const row = await insertApiKey(transaction, { accountId: input.accountId, name: previous.name, keyDigest: digestApiKey(key), keyPrefix });
    const revokeNow = input.expiresInS === 0;
    if (revokeNow) {
      await revokeApiKey(transaction, { accountId: input.accountId, id: previous.id });
    }
    const previousKeyExpiresAt = await setApiKeyExpiry(transaction, {
      id: previous.id,
      at: revokeNow ? null : new Date(input.now.getTime() + input.expiresInS * 1000),
    });
    return { id: row.id, name: row.name, key, keyPrefix: row.key_prefix, createdAt: row.created_at, previousKeyExpiresAt, previousKeyRevoked: revokeNow };
  });
