import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { OUTPUT_FORMATS, type OutputFormat } from '../../engine/outputFormat.ts';
import { planRowSchema } from './plans.ts';

export const insertDownloadLink = async (
  connection: CommonQueryMethods,
  input: {
    readonly id: string;
    readonly tokenDigest: Buffer;
    readonly accountId: string;
    readonly simulationId: string;
    readonly apiKeyId: string | null;
    readonly sessionId: string | null;
    readonly format: OutputFormat;
    readonly expiresInS: number;
  },
): Promise<{ readonly expires_at: string }> =>
  connection.one(sql.type(z.object({ expires_at: z.string() }))`
    INSERT INTO download_links (id, token_digest, account_id, simulation_id, api_key_id, session_id, format, expires_at)
    VALUES (${input.id}, ${sql.binary(input.tokenDigest)}, ${input.accountId}, ${input.simulationId}, ${input.apiKeyId},
      ${input.sessionId}, ${input.format}, now() + make_interval(secs => ${input.expiresInS}))
    RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at
  `);

const downloadLinkRowSchema = z.object({
  simulation_id: z.string(),
  account_id: z.string(),
  api_key_id: z.string().nullable(),
  session_id: z.string().nullable(),
  format: z.enum(OUTPUT_FORMATS),
  /** Past expires_at, or its key revoked or expired, or its account deactivated. */
  ended: z.boolean(),
  plan: planRowSchema,
});

export type DownloadLinkRow = z.infer<typeof downloadLinkRowSchema>;

/** The link a token digest names, with whether it has ended and its account's plan, in one query. */
export const findDownloadLink = async (connection: CommonQueryMethods, tokenDigest: Buffer): Promise<DownloadLinkRow | null> =>
  connection.maybeOne(sql.type(downloadLinkRowSchema)`
    SELECT download_links.simulation_id, download_links.account_id, download_links.api_key_id, download_links.session_id,
      download_links.format,
      (download_links.expires_at <= now() OR NOT accounts.is_active
        OR (download_links.api_key_id IS NOT NULL
          AND (api_keys.revoked_at IS NOT NULL OR (api_keys.expires_at IS NOT NULL AND api_keys.expires_at <= now())))) AS ended,
      json_build_object('name', plans.name, 'requests_per_minute', plans.requests_per_minute, 'monthly_requests', plans.monthly_requests,
        'monthly_interactions', plans.monthly_interactions, 'max_interactions_per_request', plans.max_interactions_per_request,
        'max_concurrent_simulations', plans.max_concurrent_simulations, 'max_active_api_keys', plans.max_active_api_keys) AS plan
    FROM download_links
    JOIN accounts ON accounts.id = download_links.account_id
    JOIN plans ON plans.name = accounts.plan
    LEFT JOIN api_keys ON api_keys.id = download_links.api_key_id
    WHERE download_links.token_digest = ${sql.binary(tokenDigest)}
  `);
