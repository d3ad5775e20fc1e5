import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

export const simulationStatusSchema = z.enum(['queued', 'completed', 'failed', 'timed_out']);

export type SimulationStatus = z.infer<typeof simulationStatusSchema>;

export const simulationRowSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  api_key_id: z.string().nullable(),
  session_id: z.string().nullable(),
  preset: z.string(),
  profile: z.string(),
  // bigint in the table (seeds reach 2^32 - 1); selected as float8, exact far beyond that, so it is a number.
  seed: z.number(),
  num_interactions: z.number(),
  status: simulationStatusSchema,
  period_start: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  compute_ms: z.number().nullable(),
});

export type SimulationRow = z.infer<typeof simulationRowSchema>;

const simulationColumns = sql.fragment`
  id, account_id, api_key_id, session_id, preset, profile, seed::float8 AS seed, num_interactions, status, period_start,
  created_at, started_at, finished_at, compute_ms
`;

export interface InsertSimulationInput {
  readonly id: string;
  readonly accountId: string;
  readonly apiKeyId: string | null;
  readonly sessionId: string | null;
  readonly preset: string;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  /** ISO timestamp: the first instant of the UTC month the request counts against. */
  readonly periodStart: string;
}

/**
 * Ledger writes commit asynchronously: each one is on the path of a simulation request, and waiting for
 * the WAL flush would cost a disk sync per write (milliseconds) twice per request. The trade, per
 * statement only (the session keeps synchronous_commit on): a PostgreSQL crash, not an application one,
 * can lose the last fraction of a second of ledger writes (up to 3 x wal_writer_delay); it never corrupts
 * or half-applies one. Taking the setting in the statement's own implicit transaction saves the round
 * trips of BEGIN / SET LOCAL / COMMIT.
 */
const asyncCommit = sql.fragment`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/** The ledger row of an admitted request, written before its job is enqueued. */
export const insertSimulation = async (connection: CommonQueryMethods, input: InsertSimulationInput): Promise<SimulationRow> =>
  connection.one(sql.type(simulationRowSchema)`
    INSERT INTO simulations (id, account_id, api_key_id, session_id, preset, profile, seed, num_interactions, status, period_start)
    SELECT ${input.id}, ${input.accountId}, ${input.apiKeyId}, ${input.sessionId}, ${input.preset}, ${input.profile},
      ${input.seed}, ${input.numInteractions}, 'queued', ${input.periodStart}::timestamptz
    FROM ${asyncCommit}
    RETURNING ${simulationColumns}
  `);

export interface FinishSimulationInput {
  readonly id: string;
  readonly status: Exclude<SimulationStatus, 'queued'>;
  /** ISO timestamps; startedAt is null when the run never started (or nobody knows when it did). */
  readonly startedAt: string | null;
  readonly finishedAt: string;
  readonly computeMs: number | null;
}

/**
 * Moves a queued row to its final status, once: a row already finished is left alone and null returned,
 * so a late second settlement can never turn a timeout into a completion or count a run twice.
 */
export const finishSimulation = async (connection: CommonQueryMethods, input: FinishSimulationInput): Promise<SimulationRow | null> =>
  connection.maybeOne(sql.type(simulationRowSchema)`
    UPDATE simulations
    SET status = ${input.status}, started_at = ${input.startedAt}::timestamptz, finished_at = ${input.finishedAt}::timestamptz,
      compute_ms = ${input.computeMs}
    FROM ${asyncCommit}
    WHERE id = ${input.id} AND status = 'queued'
    RETURNING ${simulationColumns}
  `);

export const findSimulation = async (connection: CommonQueryMethods, id: string): Promise<SimulationRow | null> =>
  connection.maybeOne(sql.type(simulationRowSchema)`SELECT ${simulationColumns} FROM simulations WHERE id = ${id}`);
