import type { SimulationClient } from '../simulations/createSimulationClient.ts';
import type { Metrics } from './createMetrics.ts';
import { recordSimulation } from './recordSimulation.ts';

/**
 * The simulation client, counting every run it carries by preset and outcome, with queue wait and compute
 * time. Measured at the client, the one path every admitted run takes, so nothing in the route has to
 * remember to record. A run that could not be enqueued or answered (503) counts as `unavailable`.
 */
export const instrumentSimulationClient = (client: SimulationClient, metrics: Metrics): SimulationClient => ({
  ...client,
  run: async (job, sink) => {
    const enqueuedAt = Date.now();
    // Every model run shares one label: an account's model names would grow the series without bound.
    const preset = job.model === undefined ? job.preset : 'model';
    let outcome;
    try {
      outcome = await client.run(job, sink);
    } catch (error) {
      recordSimulation(metrics, { preset, outcome: 'unavailable' });
      throw error;
    }
    switch (outcome.status) {
      case 'completed':
        recordSimulation(metrics, {
          preset,
          outcome: 'completed',
          queueWaitMs: outcome.startedAt - enqueuedAt,
          computeMs: outcome.computeMs,
        });
        break;
      case 'failed':
        recordSimulation(metrics, {
          preset,
          outcome: 'failed',
          ...(outcome.startedAt === null ? {} : { queueWaitMs: outcome.startedAt - enqueuedAt }),
        });
        break;
      case 'timed_out':
        recordSimulation(metrics, { preset, outcome: 'timed_out' });
        break;
      case 'cancelled':
        recordSimulation(metrics, { preset, outcome: 'cancelled' });
        break;
    }
    return outcome;
  },
});
