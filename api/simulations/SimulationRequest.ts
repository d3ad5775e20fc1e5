import type { RunSpecification } from '../../shared/runs/runSpecification.ts';

/**
 * A validated request, names resolved (the canonical preset, or the model version with `preset` its name;
 * the profile to use; the exact engine): the run's specification but for what admission decides, its
 * simulation id and, when the request gave none, its seed.
 */
export type SimulationRequest = Omit<RunSpecification, 'simulationId' | 'seed'> & {
  readonly seed: number | undefined;
  /**
   * Set when a recorded, completed run is made again (GET /v1/simulations/{id}/records, an idempotent
   * retry of POST /v1/simulations): its id and the engine version that made it. Same inputs and engine
   * give the same records; a replay writes no ledger row and takes no quota.
   */
  readonly replayOf?: { readonly simulationId: string; readonly serviceVersion: string };
};
