import type { RunTimingSpec } from '../shared/engine/RunTimingSpec.ts';
import type { Scenario, ScenarioOutcome } from '../shared/engine/scenario.ts';
import { eventJson } from './eventJson.ts';
import type { SimulationTask } from './simulationTask.ts';

export interface ResultEnvelope {
  /** Everything before the `data` array: the run's identity. */
  readonly head: Uint8Array;
  /**
   * Everything after it: the scenario with what the run made of it, and the metadata, which states the
   * compute time; both known only once the records are printed.
   */
  readonly tail: (computeMs: number, outcome: ScenarioOutcome | undefined) => Uint8Array;
}

/**
 * The scenario as the result echoes it, its keys in one order whatever order the object holds them in
 * (a ledger's jsonb keeps its own): a replay's body is the first run's byte for byte. `placed` and
 * `unplaced` follow the request's members; they are printed one event at a time, never as one string of
 * the whole list built twice.
 */
const scenarioJson = (scenario: Scenario | undefined, outcome: ScenarioOutcome | undefined): string => {
  if (scenario === undefined) return 'null';
  const parts: string[] = [];
  if (scenario.events !== undefined) parts.push(`"events":[${scenario.events.map(eventJson).join(',')}]`);
  if (scenario.random !== undefined) {
    const { types, per_sequence, duration, intensity, min_gap } = scenario.random;
    parts.push(`"random":${JSON.stringify({ types, per_sequence, duration, intensity, min_gap })}`);
  }
  parts.push(`"placed":[${(outcome?.placed ?? []).map(eventJson).join(',')}]`);
  parts.push(`"unplaced":[${(outcome?.unplaced ?? []).map(eventJson).join(',')}]`);
  return `{${parts.join(',')}}`;
};

/**
 * The result's `model`: the version a model run was made from, null for a preset's
 * (docs/models.md#running-a-model-post-v1simulations-with-model).
 */
const modelJson = ({ model }: SimulationTask): string =>
  model === undefined ? 'null' : JSON.stringify({ name: model.name, version: model.version, digest: model.digest });

/** Engine 4's echoed start_time, order and population (nothing for engines before 4), in one key order. */
const timingJson = (timing: RunTimingSpec | undefined): string =>
  timing === undefined ? '' : `"start_time":${JSON.stringify(timing.start_time)},"order":${JSON.stringify(timing.order)},"population":${timing.population},`;

/**
 * The Simulation result around the engine's `data` array, as bytes: the records are printed once, straight
 * into the chunks, and nothing downstream parses them. The scenario's echo follows the records: which events
 * were placed is known only once they are, and the run is never held to find out (docs/scenarios.md).
 */
export const resultEnvelope = (task: SimulationTask): ResultEnvelope => ({
  head: Buffer.from(
    `{"simulation_id":${JSON.stringify(task.simulationId)},"preset":${JSON.stringify(task.preset)},"model":${modelJson(task)},` +
      `"profile":${JSON.stringify(task.profile)},"num_interactions":${task.numInteractions},"seed":${task.seed},${timingJson(task.timing)}"data":`,
  ),
  tail: (computeMs, outcome) =>
    Buffer.from(
      `,"scenario":${scenarioJson(task.scenario, outcome)},` +
        `"metadata":{"service_version":${JSON.stringify(task.serviceVersion)},"api_version":${JSON.stringify(task.apiVersion)},` +
        `"compute_ms":${computeMs},"reproducible":true}}`,
    ),
});
