import { type CommonQueryMethods, type DatabaseTransactionConnection, sql } from 'slonik';
import { z } from 'zod';

const streamStatusSchema = z.enum(['running', 'completed', 'cancelled', 'failed']);

const lastErrorSchema = z.object({ code: z.string(), message: z.string(), at: z.string() });
const inflightBatchSchema = z.object({ batch: z.number(), first: z.number(), last: z.number() });

const streamRowSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  status: streamStatusSchema,
  request: z.record(z.string(), z.unknown()),
  speed: z.number(),
  start_time: z.string(),
  num_interactions: z.number(),
  total_events: z.number(),
  delivered: z.number(),
  sink: z.record(z.string(), z.unknown()),
  webhook_secret_sealed: z.string().nullable(),
  acknowledged: z.number(),
  acknowledged_batch: z.number(),
  inflight_batch: inflightBatchSchema.nullable(),
  last_error: lastErrorSchema.nullable(),
  period_start: z.string(),
  created_at: z.string(),
  /** created_at in ms since the epoch, exact: the pacing's origin. */
  created_ms: z.number(),
  finished_at: z.string().nullable(),
  cursor_at: z.string(),
});

export type StreamRow = z.infer<typeof streamRowSchema>;

const COLUMNS = sql.fragment`
  id, account_id, status, request, speed, to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS start_time,
  num_interactions, total_events, delivered, sink, webhook_secret_sealed, acknowledged, acknowledged_batch, inflight_batch,
  last_error, period_start::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  floor(extract(epoch FROM created_at) * 1000)::float8 AS created_ms,
  to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS finished_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
`;

export interface NewStream {
  readonly id: string;
  readonly accountId: string;
  /** The API key that created it; null for a browser session (the usage's credential). */
  readonly apiKeyId: string | null;
  readonly request: Record<string, unknown>;
  readonly speed: number;
  /** ISO 8601, or null: the instant of creation (the row's created_at). */
  readonly startTime: string | null;
  readonly numInteractions: number;
  readonly totalEvents: number;
  readonly sink: Record<string, unknown>;
  readonly webhookSecretSealed: string | null;
  readonly periodStart: string;
}

/**
 * The account's row locked and its running streams counted, in the caller's transaction: two creations
 * on any processes take turns here, so `max_concurrent_streams` holds exactly (docs/limits.md#live-streams).
 * Returns the plan's limit and how many run now.
 */
export const lockStreamSlots = async (transaction: DatabaseTransactionConnection, accountId: string): Promise<{ limit: number; running: number }> =>
  transaction.one(sql.type(z.object({ limit: z.number(), running: z.number() }))`
    WITH account AS (SELECT plan FROM accounts WHERE id = ${accountId} FOR UPDATE)
    SELECT plans.max_concurrent_streams AS limit,
      (SELECT count(*)::int FROM streams WHERE account_id = ${accountId} AND status = 'running') AS running
    FROM account JOIN plans ON plans.name = account.plan
  `);

export const insertStream = async (transaction: DatabaseTransactionConnection, stream: NewStream): Promise<StreamRow> =>
  transaction.one(sql.type(streamRowSchema)`
    INSERT INTO streams (id, account_id, api_key_id, request, speed, start_time, num_interactions, total_events, sink, webhook_secret_sealed, period_start, created_at)
    VALUES (${stream.id}, ${stream.accountId}, ${stream.apiKeyId}, ${sql.jsonb(stream.request as never)}, ${stream.speed},
      coalesce(${stream.startTime}::timestamptz, date_trunc('milliseconds', clock_timestamp())), ${stream.numInteractions}, ${stream.totalEvents},
      ${sql.jsonb(stream.sink as never)}, ${stream.webhookSecretSealed}, ${stream.periodStart}, date_trunc('milliseconds', clock_timestamp()))
    RETURNING ${COLUMNS}
  `);

/** A start_time defaulted to the creation instant: one statement after the insert, in its transaction. */
export const alignStartTime = async (transaction: DatabaseTransactionConnection, id: string): Promise<StreamRow> =>
  transaction.one(sql.type(streamRowSchema)`UPDATE streams SET start_time = created_at WHERE id = ${id} RETURNING ${COLUMNS}`);

/** Unknown, malformed and another account's ids give the same null. */
export const findStream = async (connection: CommonQueryMethods, input: { accountId: string; id: string }): Promise<StreamRow | null> =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(input.id)
    ? connection.maybeOne(sql.type(streamRowSchema)`SELECT ${COLUMNS} FROM streams WHERE id = ${input.id} AND account_id = ${input.accountId}`)
    : null;

export const findStreamById = async (connection: CommonQueryMethods, id: string): Promise<StreamRow | null> =>
  connection.maybeOne(sql.type(streamRowSchema)`SELECT ${COLUMNS} FROM streams WHERE id = ${id}`);

/** Status and delivered of the given streams, in one statement (an API process's readers: api/streams/createStreamWatch.ts). */
export const findStreamStates = async (
  connection: CommonQueryMethods,
  ids: readonly string[],
): Promise<readonly { id: string; status: StreamRow['status']; delivered: number }[]> =>
  connection.any(sql.type(z.object({ id: z.string(), status: streamStatusSchema, delivered: z.number() }))`
    SELECT id, status, delivered FROM streams WHERE id = ANY(${sql.array(ids, 'uuid')})
  `);

/** A page of the account's streams, newest first, keyset by (created_at, id) like the history. */
export const listStreams = async (
  connection: CommonQueryMethods,
  input: { accountId: string; limit: number; after?: { createdAt: string; id: string } },
): Promise<readonly StreamRow[]> =>
  connection.any(sql.type(streamRowSchema)`
    SELECT ${COLUMNS} FROM streams
    WHERE account_id = ${input.accountId}
      ${input.after === undefined ? sql.fragment`` : sql.fragment`AND (created_at, id) < (${input.after.createdAt}::timestamptz, ${input.after.id}::uuid)`}
    ORDER BY created_at DESC, id DESC
    LIMIT ${input.limit}
  `);

/**
 * Ends a running stream (cancelled or failed) with what it delivered and what it is charged: the
 * request when anything was delivered, and the records delivered (`deliveredRecords`). Null when it had
 * already ended (nothing to give back twice).
 */
export const endStream = async (
  connection: CommonQueryMethods,
  input: { id: string; status: 'cancelled' | 'failed'; delivered: number; deliveredRecords: number; lastError: { code: string; message: string; at: string } | null },
): Promise<StreamRow | null> =>
  connection.maybeOne(sql.type(streamRowSchema)`
    UPDATE streams SET status = ${input.status}, finished_at = clock_timestamp(), delivered = greatest(delivered, ${input.delivered}),
      charged_requests = CASE WHEN ${input.deliveredRecords} > 0 THEN 1 ELSE 0 END, charged_interactions = ${input.deliveredRecords},
      last_error = ${input.lastError === null ? null : sql.jsonb(input.lastError)}
    WHERE id = ${input.id} AND status = 'running'
    RETURNING ${COLUMNS}
  `);

/** The stream completed: every event delivered, charged in full. Idempotent; finished_at is the last event's due instant. */
export const completeStream = async (connection: CommonQueryMethods, input: { id: string; finishedMs: number }): Promise<void> => {
  await connection.query(sql.unsafe`
    UPDATE streams SET status = 'completed', delivered = total_events, acknowledged = CASE WHEN sink->>'type' = 'webhook' THEN total_events ELSE acknowledged END,
      finished_at = to_timestamp(${input.finishedMs / 1000}), charged_requests = 1, charged_interactions = num_interactions
    WHERE id = ${input.id} AND status = 'running'
  `);
};

/**
 * How far each of a worker's streams' events are due, in one statement for all of them (worker/streams/
 * createStreamProgress.ts): `delivered` raised where it is behind and the stream still running, never
 * backwards; returns every given stream's status (a deleted one is absent).
 */
export const recordDeliveredMany = async (
  connection: CommonQueryMethods,
  entries: readonly { readonly id: string; readonly delivered: number }[],
): Promise<readonly { id: string; status: StreamRow['status'] }[]> =>
  connection.any(sql.type(z.object({ id: z.string(), status: streamStatusSchema }))`
    WITH given AS (
      SELECT * FROM ${sql.unnest(
        entries.map((entry) => [entry.id, entry.delivered]),
        ['uuid', 'int8'],
      )} AS given (id, delivered)
    ), recorded AS (
      UPDATE streams SET delivered = given.delivered FROM given
      WHERE streams.id = given.id AND streams.status = 'running' AND streams.delivered < given.delivered
    )
    SELECT streams.id, streams.status FROM streams JOIN given ON given.id = streams.id
  `);

/** The webhook batch about to be sent, fixed before its first try. */
export const fixInflightBatch = async (connection: CommonQueryMethods, input: { id: string; batch: number; first: number; last: number }): Promise<void> => {
  await connection.query(sql.unsafe`
    UPDATE streams SET inflight_batch = ${sql.jsonb({ batch: input.batch, first: input.first, last: input.last })}
    WHERE id = ${input.id} AND status = 'running'
  `);
};

/** A 2xx answer: the batch acknowledged. */
export const acknowledgeBatch = async (connection: CommonQueryMethods, input: { id: string; batch: number; last: number }): Promise<void> => {
  await connection.query(sql.unsafe`
    UPDATE streams SET acknowledged = ${input.last}, acknowledged_batch = ${input.batch}, delivered = greatest(delivered, ${input.last}), inflight_batch = NULL
    WHERE id = ${input.id} AND status = 'running'
  `);
};
