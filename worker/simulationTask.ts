import type { PresetName } from '../shared/engine/index.ts';

/** What the main thread hands a pool thread: the run's inputs and the fields the result echoes. */
export interface SimulationTask {
  readonly simulationId: string;
  readonly preset: PresetName;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  readonly apiVersion: string;
}

/** What a thread hands back: the response body, ready to send, and the compute time it states. */
export interface SimulationTaskResult {
  readonly body: Uint8Array;
  readonly computeMs: number;
}
