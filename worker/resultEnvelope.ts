import type { Scenario } from '../shared/engine/scenario.ts';
import type { SimulationTask } from './simulationTask.ts';

export interface ResultEnvelope {
  /** Everything before the `data` array: the run's identity. */
  readonly head: Uint8Array;
  /** Everything after it: the metadata, which states the compute time and so is printed last. */
  readonly tail: (computeMs: number) => Uint8Array;
}

/**
 * The scenario as the result echoes it, its keys in one order whatever order the object holds them in
 * (a ledger's jsonb keeps its own): a replay's body is the first run's byte for byte.
 */
const scenarioJson = (scenario: Scenario | undefined): string =>
  scenario === undefined
    ? 'null'
    : JSON.stringify({
        events: scenario.events.map(({ type, sequence, at_step, duration, intensity }) => ({ type, sequence, at_step, duration, intensity })),
      });

/** The result's `model`: the version a model run was made from, null for a preset's (DECISIONS "Models"). */
const modelJson = ({ model }: SimulationTask): string =>
  model === undefined ? 'null' : JSON.stringify({ name: model.name, version: model.version, digest: model.digest });

/**
 * The Simulation result around the engine's `data` array, as bytes: the records are printed once, straight
 * into the chunks, and nothing downstream parses them.
 */
export const resultEnvelope = (task: SimulationTask): ResultEnvelope => ({
  head: Buffer.from(
    `{"simulation_id":${JSON.stringify(task.simulationId)},"preset":${JSON.stringify(task.preset)},"model":${modelJson(task)},` +
      `"profile":${JSON.stringify(task.profile)},"num_interactions":${task.numInteractions},"seed":${task.seed},` +
      `"scenario":${scenarioJson(task.scenario)},"data":`,
  ),
  tail: (computeMs) =>
    Buffer.from(
      `,"metadata":{"service_version":${JSON.stringify(task.serviceVersion)},"api_version":${JSON.stringify(task.apiVersion)},` +
        `"compute_ms":${computeMs},"reproducible":true}}`,
    ),
});
