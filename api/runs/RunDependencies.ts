import type { Logger } from '../../shared/logger.ts';
import type { LeaseKeeper } from '../limits/createLeaseKeeper.ts';
import type { LimitDependencies } from '../limits/LimitDependencies.ts';
import type { Metrics } from '../metrics/createMetrics.ts';
import type { ModelStore } from '../models/createModelStore.ts';
import type { SimulationClient } from '../simulations/createSimulationClient.ts';
import type { StreamRunDependencies } from '../simulations/streamRun.ts';
import type { LedgerWriter } from './createLedgerWriter.ts';

/**
 * What a run's life needs of its process (api/Services.ts is one of these), passed in: the run module
 * imports no Services and no Koa, so the routes are the only layer that knows about HTTP.
 */
export interface RunDependencies extends LimitDependencies, StreamRunDependencies {
  readonly logger: Logger;
  /** The ledger's group-commit writer (createLedgerWriter.ts). */
  readonly ledger: LedgerWriter;
  /** Keeps this process's runs' in-flight entries in Redis (api/limits/createLeaseKeeper.ts). */
  readonly leases: LeaseKeeper;
  /** The queue to the simulation workers and the data plane back from them. */
  readonly simulations: SimulationClient;
  /** This process's Prometheus series (api/metrics): refusals by a limit are counted. */
  readonly metrics: Metrics;
  /** The accounts' model versions (api/models/createModelStore.ts): a replay's recorded version. */
  readonly models: ModelStore;
}
