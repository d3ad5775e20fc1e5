import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { digestApiKey } from '../../shared/auth/digestApiKey.ts';
import { generateApiKey } from '../../shared/auth/generateApiKey.ts';
import { insertAccount } from '../../shared/db/queries/accounts.ts';
import { insertApiKey } from '../../shared/db/queries/apiKeys.ts';

export interface BuiltAccount {
  readonly id: string;
  readonly email: string;
  readonly display_name: string;
  readonly plan: string;
}

/** An account with a unique e-mail on the free plan unless told otherwise. */
export const buildAccount = async (
  pool: DatabasePool,
  overrides: { email?: string; display_name?: string; plan?: string; is_active?: boolean } = {},
): Promise<BuiltAccount> => {
  const account = await insertAccount(pool, {
    email: overrides.email ?? `user-${randomBytes(6).toString('hex')}@example.com`,
    displayName: overrides.display_name ?? 'Test User',
    plan: overrides.plan ?? 'free',
    isActive: overrides.is_active ?? true,
  });
  return { id: account.id, email: account.email, display_name: account.display_name, plan: account.plan };
};

export interface BuiltApiKey {
  readonly id: string;
  /** The raw key, for `Authorization: Bearer <key>`. */
  readonly key: string;
  readonly key_prefix: string;
}

/**
 * An active key of the account. It is inserted directly, so the plan's active-key limit does not apply:
 * a test can give an account more keys than its plan would let it create.
 */
export const buildApiKey = async (pool: DatabasePool, accountId: string, overrides: { name?: string } = {}): Promise<BuiltApiKey> => {
  const { key, keyPrefix } = generateApiKey();
  const row = await insertApiKey(pool, { accountId, name: overrides.name ?? 'test key', keyDigest: digestApiKey(key), keyPrefix });
  return { id: row.id, key, key_prefix: row.key_prefix };
};
