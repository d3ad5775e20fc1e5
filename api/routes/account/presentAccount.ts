import type { AccountRow } from '../../../shared/db/queries/accounts.ts';
import type { AccountResponse } from './schema.ts';

export const presentAccount = (account: AccountRow, authenticationMethods: readonly string[]): AccountResponse => ({
  id: account.id,
  email: account.email,
  display_name: account.display_name,
  is_active: account.is_active,
  created_at: account.created_at,
  authentication_methods: [...authenticationMethods],
  plan: account.plan,
});
