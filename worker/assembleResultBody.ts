import { ENGINE_VERSION } from '../shared/engine/index.ts';
import type { SimulationTask } from './simulationTask.ts';

/**
 * The whole Simulation result as bytes: the engine's `data` array spliced between a head and a tail that
 * are tiny JSON objects, so the records are serialized exactly once and nothing downstream parses them.
 * The body is a fresh ArrayBuffer of exact size, so it can be transferred out of the thread without a copy.
 */
export const assembleResultBody = (task: SimulationTask, data: Uint8Array, computeMs: number): Uint8Array => {
  const head = Buffer.from(
    `{"simulation_id":${JSON.stringify(task.simulationId)},"preset":${JSON.stringify(task.preset)},` +
      `"profile":${JSON.stringify(task.profile)},"num_interactions":${task.numInteractions},"seed":${task.seed},"data":`,
  );
  const tail = Buffer.from(
    `,"metadata":{"service_version":${JSON.stringify(ENGINE_VERSION)},"api_version":${JSON.stringify(task.apiVersion)},` +
      `"compute_ms":${computeMs},"reproducible":true}}`,
  );
  const body = new Uint8Array(head.length + data.length + tail.length);
  body.set(head, 0);
  body.set(data, head.length);
  body.set(tail, head.length + data.length);
  return body;
};
