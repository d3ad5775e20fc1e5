import { setTimeout as delay } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';
import { createBatcher } from '../../shared/async/createBatcher.ts';
import { type LedgerRowInput, writeLedger } from '../../shared/db/queries/simulations.ts';

// How long a ledger write keeps retrying after a lost connection or a lost acknowledgement: the pool's own
// connection timeout, so a restarted PostgreSQL is waited for about as long as a fresh connection would be.
const RETRY_BUDGET_MS = 5000;
const FIRST_BACKOFF_MS = 25;
const MAX_BACKOFF_MS = 500;

export interface LedgerWriter {
  /**
   * Writes a settled run's row, the one ledger write of a run; resolves once it is committed, true when
   * this write inserted it (false: the row was there already, from an earlier attempt or the sweeper).
   */
  readonly write: (row: LedgerRowInput) => Promise<boolean>;
  /**
   * Resolves once every write begun so far has ended, committed or given up (each within the retry
   * budget): a stopping process writes the rows of the runs it answered before it closes its pool.
   */
  readonly drain: () => Promise<void>;
}

// SQLSTATE classes 22 (data exception) and 23 (integrity violation) fail the same way every time.
const isPermanent = (error: unknown): boolean => {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^2[23]/.test(code)) {
      return true;
    }
  }
  return false;
};

/**
 * Retries an idempotent ledger write while the failure may be the link's (a cut connection, a restarting
 * server, an acknowledgement lost after the commit): each attempt takes a connection from the pool, which
 * has dropped the broken one, so the retry runs on a new connection.
 */
const withRetry = async <T>(attempt: () => Promise<T>): Promise<T> => {
  const until = Date.now() + RETRY_BUDGET_MS;
  for (let backoff = FIRST_BACKOFF_MS; ; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (isPermanent(error) || Date.now() + backoff > until) {
        throw error;
      }
      await delay(backoff);
    }
  }
};

/**
 * The process's ledger writer (one per process, made by api/createServices.ts): settled rows go through
 * one group-commit batcher, so every request that settled while the previous write was in flight shares
 * one statement and one commit.
 */
export const createLedgerWriter = (pool: DatabasePool): LedgerWriter => {
  const write = createBatcher<LedgerRowInput, boolean>(async (rows) => {
    const inserted = new Set(await writeLedger(pool, rows));
    return rows.map((row) => inserted.has(row.simulationId));
  });
  const pending = new Set<Promise<boolean>>();
  return {
    write: (row) => {
      const written = withRetry(() => write(row));
      pending.add(written);
      const forget = (): void => {
        pending.delete(written);
      };
      written.then(forget, forget);
      return written;
    },
    drain: async () => {
      await Promise.allSettled([...pending]);
    },
  };
};
