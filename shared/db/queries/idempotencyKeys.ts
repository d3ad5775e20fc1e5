import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

const idempotencyRecordSchema = z.object({
  fingerprint: z.instanceof(Buffer),
  status: z.enum(['running', 'completed']),
  response_status: z.number().nullable(),
  response: z.unknown(),
});

export type IdempotencyRecord = z.infer<typeof idempotencyRecordSchema>;

export interface IdempotencyClaim {
  readonly accountId: string;
  readonly key: string;
  readonly fingerprint: Buffer;
  readonly claimToken: string;
  readonly now: Date;
  readonly lockedUntil: Date;
  readonly expiresAt: Date;
}

/**
 * Takes the key for a first request, atomically: a fresh key is inserted; a key whose retention ended, or
 * whose first request's holder vanished without answering (lease over), is taken over. Returns whether
 * this request won; when it did not, the row another request holds is left untouched. Rows of the account
 * whose retention ended are removed on the way (one statement, no sweeper needed).
 */
export const claimIdempotencyKey = async (connection: CommonQueryMethods, claim: IdempotencyClaim): Promise<boolean> => {
  const now = sql.timestamp(claim.now);
  const claimed = await connection.maybeOneFirst(sql.type(z.object({ claimed: z.boolean() }))`
    WITH purged AS (
      DELETE FROM idempotency_keys
      WHERE account_id = ${claim.accountId} AND expires_at <= ${now} AND idempotency_key <> ${claim.key}
    )
    INSERT INTO idempotency_keys (account_id, idempotency_key, fingerprint, status, claim_token, locked_until, created_at, expires_at)
    VALUES (${claim.accountId}, ${claim.key}, ${sql.binary(claim.fingerprint)}, 'running', ${claim.claimToken},
      ${sql.timestamp(claim.lockedUntil)}, ${now}, ${sql.timestamp(claim.expiresAt)})
    ON CONFLICT (account_id, idempotency_key) DO UPDATE SET
      fingerprint = EXCLUDED.fingerprint, status = 'running', claim_token = EXCLUDED.claim_token,
      locked_until = EXCLUDED.locked_until, response_status = NULL, response = NULL,
      created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
    WHERE idempotency_keys.expires_at <= ${now}
      OR (idempotency_keys.status = 'running' AND idempotency_keys.locked_until <= ${now})
    RETURNING true AS claimed
  `);
  return claimed === true;
};

export const findIdempotencyRecord = async (
  connection: CommonQueryMethods,
  input: { readonly accountId: string; readonly key: string },
): Promise<IdempotencyRecord | null> =>
  connection.maybeOne(sql.type(idempotencyRecordSchema)`
    SELECT fingerprint, status, response_status, response FROM idempotency_keys
    WHERE account_id = ${input.accountId} AND idempotency_key = ${input.key}
  `);

/** Keeps the first 2xx answer's replay recipe; only the holder of the claim can. */
export const completeIdempotencyKey = async (
  connection: CommonQueryMethods,
  input: { readonly accountId: string; readonly key: string; readonly claimToken: string; readonly status: number; readonly response: unknown },
): Promise<void> => {
  await connection.query(sql.type(z.object({}))`
    UPDATE idempotency_keys SET status = 'completed', response_status = ${input.status}, response = ${sql.jsonb(input.response as never)}
    WHERE account_id = ${input.accountId} AND idempotency_key = ${input.key} AND claim_token = ${input.claimToken}
  `);
};

/** A first attempt that failed keeps nothing: the key may be retried and runs anew. */
export const releaseIdempotencyKey = async (
  connection: CommonQueryMethods,
  input: { readonly accountId: string; readonly key: string; readonly claimToken: string },
): Promise<void> => {
  await connection.query(sql.type(z.object({}))`
    DELETE FROM idempotency_keys
    WHERE account_id = ${input.accountId} AND idempotency_key = ${input.key} AND claim_token = ${input.claimToken} AND status = 'running'
  `);
};
