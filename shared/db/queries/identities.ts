import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

/** The providers an account can sign in with, each once, sorted: the Account's `authentication_methods`. */
export const listAuthenticationMethods = async (connection: CommonQueryMethods, accountId: string): Promise<readonly string[]> =>
  connection.anyFirst(sql.type(z.object({ provider: z.string() }))`
    SELECT DISTINCT provider FROM identities WHERE account_id = ${accountId} ORDER BY provider
  `);
