import { listSimulationRuns, type ListSimulationRunsInput, type SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import type { RunDependencies } from './RunDependencies.ts';
import { readInflightRuns } from './readInflightRuns.ts';

const newestFirst = (a: SimulationRunRow, b: SimulationRunRow): number =>
  a.cursor_at === b.cursor_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.cursor_at < b.cursor_at ? 1 : -1;

/**
 * One page of the account's history: the ledger's rows merged with the runs still in flight, which have
 * no row until they settle and whose row may not be committed yet once they have
 * (createRun.ts), by the same keyset (created_at to the µs, id), newest first. Redis
 * is read first: an entry is dropped only once its row is committed, so a run gone from the first read
 * is in the second. A run settling meanwhile may be in both: the ledger's row wins.
 */
export const listRuns = async (deps: RunDependencies, input: ListSimulationRunsInput): Promise<readonly SimulationRunRow[]> => {
  const inflight = await readInflightRuns(deps, input.accountId, { settled: true });
  const rows = await listSimulationRuns(deps.pool, input);
  if (inflight.length === 0) {
    return rows;
  }
  const { after } = input;
  const recorded = new Set(rows.map((row) => row.id));
  const pending = inflight.filter(
    (row) =>
      !recorded.has(row.id) &&
      (input.preset === undefined || row.preset === input.preset) &&
      (input.status === undefined || row.status === input.status) &&
      (after === undefined || row.cursor_at < after.createdAt || (row.cursor_at === after.createdAt && row.id < after.id)),
  );
  return [...rows, ...pending].sort(newestFirst).slice(0, input.limit);
};

