import type { DailyUsageRow } from '../../../shared/db/queries/usageDaily.ts';
import { simulationStatusSchema } from '../../../shared/db/queries/simulations.ts';
import type { MonthlyPeriod } from '../../../shared/limits/monthlyPeriod.ts';
import type { DailyUsageResponse, UsageCounts } from './dailyUsageSchema.ts';

const DAY_MS = 86_400_000;

const emptyCounts = (): UsageCounts => ({
  runs: 0,
  requests: 0,
  interactions: 0,
  by_status: Object.fromEntries(simulationStatusSchema.options.map((status) => [status, { runs: 0, requests: 0, interactions: 0 }])) as UsageCounts['by_status'],
});

const add = (counts: UsageCounts, row: DailyUsageRow): void => {
  counts.runs += row.runs;
  counts.requests += row.requests;
  counts.interactions += row.interactions;
  const status = counts.by_status[row.status];
  status.runs += row.runs;
  status.requests += row.requests;
  status.interactions += row.interactions;
};

/**
 * The rollup's groups as the response: every day of the period up to `now` (zeros included, so a chart
 * needs no gap filling), the total of those days, and each credential that ran in the period.
 */
export const presentDailyUsage = (period: MonthlyPeriod, now: Date, rows: readonly DailyUsageRow[]): DailyUsageResponse => {
  const dayRows = rows.filter((row) => row.day !== null);
  // Up to today in the current period (or a later day that has runs: the database's clock may be a little
  // ahead of this process's), the whole month in an earlier one.
  const latest = dayRows.reduce((last, row) => Math.max(last, Date.parse(`${row.day}T00:00:00Z`) / DAY_MS), Math.floor(now.getTime() / DAY_MS));
  const lastDay = Math.min(latest, period.end.getTime() / DAY_MS - 1);
  const days: DailyUsageResponse['days'] = [];
  for (let day = period.start.getTime() / DAY_MS; day <= lastDay; day += 1) {
    days.push({ date: new Date(day * DAY_MS).toISOString().slice(0, 10), ...emptyCounts() });
  }
  const byDate = new Map(days.map((day) => [day.date, day]));
  const totals = emptyCounts();
  for (const row of dayRows) {
    const day = byDate.get(row.day as string);
    if (day !== undefined) {
      add(day, row);
      add(totals, row);
    }
  }
  const credentials = new Map<string, DailyUsageResponse['credentials'][number]>();
  for (const row of rows) {
    if (row.day !== null) {
      continue;
    }
    const id = row.api_key_id ?? 'session';
    let entry = credentials.get(id);
    if (entry === undefined) {
      entry = {
        // Keys are revoked, never deleted: a key's runs keep their key.
        credential:
          row.api_key_id !== null && row.key_prefix !== null
            ? { type: 'api_key', api_key_id: row.api_key_id, key_prefix: row.key_prefix }
            : { type: 'session' },
        ...emptyCounts(),
        last_run_at: null,
      };
      credentials.set(id, entry);
    }
    add(entry, row);
    if (row.last_run_at !== null && (entry.last_run_at === null || row.last_run_at > entry.last_run_at)) {
      entry.last_run_at = row.last_run_at;
    }
  }
  return {
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
    totals,
    days,
    // Buckets emptied by settlements (a run that left `queued`) leave no credential behind.
    credentials: [...credentials.values()]
      .filter((entry) => entry.runs > 0)
      .sort((a, b) => b.runs - a.runs || (b.last_run_at ?? '').localeCompare(a.last_run_at ?? '')),
  };
};
