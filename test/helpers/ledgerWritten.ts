import type { Services } from '../../api/Services.ts';

/**
 * Resolves once the rows of every run this API process has settled are committed and the keeper has
 * dropped their in-flight entries. A run's row is written after its answer (api/runs/createRun.ts): a
 * test that reads the ledger or the in-flight hash directly waits for it, where a client reads the run
 * through the API, which merges the runs whose rows are still being written.
 */
export const ledgerWritten = async (services: Pick<Services, 'ledger' | 'leases'>): Promise<void> => {
  await services.ledger.drain();
  await services.leases.flush();
};
