import { findSimulationRun, type SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import type { Services } from '../Services.ts';
import { readInflightRuns } from './readInflightRuns.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One run of the account, recorded or in flight, or null (unknown, malformed, another account's). */
export const findRun = async (services: Services, input: { accountId: string; id: string }): Promise<SimulationRunRow | null> => {
  const row = await findSimulationRun(services.pool, input);
  if (row !== null || !UUID.test(input.id.toLowerCase())) {
    return row;
  }
  const [inflight] = await readInflightRuns(services, input.accountId, [input.id.toLowerCase()]);
  return inflight ?? null;
};
