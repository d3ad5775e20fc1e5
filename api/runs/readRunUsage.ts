import { sql } from 'slonik';
import { findRecordedRuns, sumCompletedUsage, type UsageTotals } from '../../shared/db/queries/usage.ts';
import { type DailyUsageRow, type ListDailyUsageInput, listDailyStreamUsage, listDailyUsage } from '../../shared/db/queries/usageDaily.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { type PendingRun, readPendingRuns } from './readInflightRuns.ts';
import type { RunDependencies } from './RunDependencies.ts';

/**
 * The runs Redis holds for the account in `period`, in flight or settled with their rows not yet
 * committed. The ledger is the durable truth: without Redis the answer is the ledger's alone.
 */
const readPending = async (deps: RunDependencies, accountId: string, period: MonthlyPeriod): Promise<PendingRun[]> => {
  try {
    const pending = await readPendingRuns(deps, accountId, { settled: true });
    return pending.filter((run) => Date.parse(run.periodStart) === period.start.getTime());
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, 'could not read the runs in flight; usage from the ledger alone');
    return [];
  }
};

/**
 * GET /v1/usage's totals for `period`: the ledger's charged rows and streams, and the runs settled in
 * Redis whose rows are written after their answers (docs/architecture.md, "The ledger row after the
 * answer"), each counted once: the ledger says in the same statement which of those it has already.
 */
export const readRunUsage = async (deps: RunDependencies, accountId: string, period: MonthlyPeriod): Promise<UsageTotals> => {
  const settled = (await readPending(deps, accountId, period)).filter((run) => run.row.status !== 'queued');
  const usage = await sumCompletedUsage(
    deps.pool,
    accountId,
    period.start,
    settled.map((run) => run.row.id),
  );
  const recorded = new Set(usage.recorded);
  let { requests, interactions } = usage;
  for (const run of settled) {
    if (!recorded.has(run.row.id)) {
      requests += run.charged.requests;
      interactions += run.charged.interactions;
    }
  }
  return { requests, interactions };
};

/**
 * GET /v1/usage/daily's rows: the ledger's rollup and streams, and the runs Redis holds that the ledger
 * has no row for yet (in flight, or settled with their rows being written). When there are any, the
 * rollup and the check of which the ledger has are read in one snapshot (REPEATABLE READ), so a row
 * committing meanwhile is counted once.
 */
export const readDailyRunUsage = async (
  deps: RunDependencies,
  input: ListDailyUsageInput,
  period: MonthlyPeriod,
  current: boolean,
): Promise<{ readonly rows: readonly DailyUsageRow[]; readonly pending: readonly PendingRun[] }> => {
  const pending = current ? await readPending(deps, input.accountId, period) : [];
  if (pending.length === 0) {
    const [runs, streams] = await Promise.all([listDailyUsage(deps.pool, input), listDailyStreamUsage(deps.pool, input)]);
    return { rows: [...runs, ...streams], pending };
  }
  return deps.pool.transaction(async (transaction) => {
    await transaction.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    const runs = await listDailyUsage(transaction, input);
    const streams = await listDailyStreamUsage(transaction, input);
    const recorded = new Set(await findRecordedRuns(transaction, pending.map((run) => run.row.id)));
    return { rows: [...runs, ...streams], pending: pending.filter((run) => !recorded.has(run.row.id)) };
  });
};
