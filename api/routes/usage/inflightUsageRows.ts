import type { SimulationRunRow } from '../../../shared/db/queries/simulationRuns.ts';
import type { DailyUsageRow, UsageCredentialFilter } from '../../../shared/db/queries/usageDaily.ts';
import type { MonthlyPeriod } from '../../../shared/limits/monthlyPeriod.ts';

/**
 * Runs in flight as the daily rollup's rows: they have no ledger row until they settle
 * (api/runs/createRun.ts), and count as `queued` runs of their day and credential, charged
 * nothing yet. Days follow the credential filter; credentials are always every one.
 */
export const inflightUsageRows = (runs: readonly SimulationRunRow[], period: MonthlyPeriod, credential?: UsageCredentialFilter): DailyUsageRow[] => {
  const rows: DailyUsageRow[] = [];
  for (const run of runs) {
    const at = Date.parse(run.created_at);
    if (at < period.start.getTime() || at >= period.end.getTime()) {
      continue;
    }
    const counts = { api_key_id: run.api_key_id, key_prefix: run.key_prefix, status: 'queued' as const, runs: 1, requests: 0, interactions: 0 };
    rows.push({ ...counts, day: null, last_run_at: run.created_at });
    const matches =
      credential === undefined || (credential.type === 'session' ? run.api_key_id === null : run.api_key_id === credential.apiKeyId);
    if (matches) {
      rows.push({ ...counts, day: run.created_at.slice(0, 10), last_run_at: null });
    }
  }
  return rows;
};
