import { findSimulationRun, type SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import type { RunDependencies } from './RunDependencies.ts';
import { readInflightRuns } from './readInflightRuns.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * One run of the account, recorded or in flight, or null (unknown, malformed, another account's). A run
 * is found at every instant between its admission and its row: its in-flight entry, settled or not, is
 * dropped only once its row is committed (createRun.ts), so a run missing from both
 * reads was dropped between them, and its row is there when read again.
 */
export const findRun = async (deps: RunDependencies, input: { accountId: string; id: string }): Promise<SimulationRunRow | null> => {
  const row = await findSimulationRun(deps.pool, input);
  if (row !== null || !UUID.test(input.id.toLowerCase())) {
    return row;
  }
  const [inflight] = await readInflightRuns(deps, input.accountId, { ids: [input.id.toLowerCase()], settled: true });
  return inflight ?? (await findSimulationRun(deps.pool, input));
};
