import type { DailyUsageRow, UsageCredentialFilter } from '../../../shared/db/queries/usageDaily.ts';
import type { MonthlyPeriod } from '../../../shared/limits/monthlyPeriod.ts';
import type { PendingRun } from '../../runs/readInflightRuns.ts';

/**
 * Runs Redis holds that the ledger has no row for yet, as the daily rollup's rows: one in flight counts as
 * a `queued` run of its day and credential, charged nothing yet; one settled, whose row is being written
 * after its answer (api/runs/createRun.ts), as the row will count it: its status and its charge. Days
 * follow the credential filter; credentials are always every one.
 */
export const inflightUsageRows = (pending: readonly PendingRun[], period: MonthlyPeriod, credential?: UsageCredentialFilter): DailyUsageRow[] => {
  const rows: DailyUsageRow[] = [];
  for (const { row: run, charged } of pending) {
    const at = Date.parse(run.created_at);
    if (at < period.start.getTime() || at >= period.end.getTime()) {
      continue;
    }
    const counts = { api_key_id: run.api_key_id, key_prefix: run.key_prefix, status: run.status, runs: 1, requests: charged.requests, interactions: charged.interactions };
    rows.push({ ...counts, day: null, last_run_at: run.created_at });
    const matches =
      credential === undefined || (credential.type === 'session' ? run.api_key_id === null : run.api_key_id === credential.apiKeyId);
    if (matches) {
      rows.push({ ...counts, day: run.created_at.slice(0, 10), last_run_at: null });
    }
  }
  return rows;
};
