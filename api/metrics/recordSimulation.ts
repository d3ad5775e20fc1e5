import type { Counter, Histogram } from 'prom-client';

/**
 * Every outcome of an admitted run, as the `outcome` label of bss_simulations_total: `cancelled` (its
 * client left or stopped reading) is apart from `failed` (a fault of ours).
 */
export const SIMULATION_METRIC_OUTCOMES = ['completed', 'failed', 'timed_out', 'cancelled', 'unavailable'] as const;

type SimulationMetricOutcome = (typeof SIMULATION_METRIC_OUTCOMES)[number];

export interface SimulationObservation {
  /** The canonical preset name, or `model` for any model run. */
  readonly preset: string;
  readonly outcome: SimulationMetricOutcome;
  /** Enqueue to start on a worker, when the run started. Milliseconds. */
  readonly queueWaitMs?: number;
  /** The engine's compute time of a completed run. Milliseconds. */
  readonly computeMs?: number;
}

/** The metrics a run is recorded in (createMetrics' `Metrics` has them). */
interface SimulationMetrics {
  readonly simulations: Counter<'preset' | 'outcome'>;
  readonly queueWait: Histogram<'preset'>;
  readonly compute: Histogram<'preset'>;
}

/** Counts one admitted simulation by outcome, and observes its queue wait and compute time when known. */
export const recordSimulation = (metrics: SimulationMetrics, observation: SimulationObservation): void => {
  const { preset } = observation;
  metrics.simulations.inc({ preset, outcome: observation.outcome });
  if (observation.queueWaitMs !== undefined) {
    // Worker and API clocks can differ by a few milliseconds; a negative wait is that, not time travel.
    metrics.queueWait.observe({ preset }, Math.max(0, observation.queueWaitMs) / 1000);
  }
  if (observation.computeMs !== undefined) {
    metrics.compute.observe({ preset }, observation.computeMs / 1000);
  }
};
