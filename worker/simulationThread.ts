import { move, transferableSymbol, valueSymbol } from 'piscina';
import { writeRecordsJson } from '../shared/engine/index.ts';
import { assembleResultBody } from './assembleResultBody.ts';
import type { SimulationTask, SimulationTaskResult } from './simulationTask.ts';

/**
 * The piscina thread entry: the only place the engine runs in a worker process. The body's buffer is
 * transferred, not copied, back to the main thread, which only stores it in Redis.
 */
export default function runSimulationTask(task: SimulationTask): SimulationTaskResult {
  const started = performance.now();
  const data = writeRecordsJson({
    preset: task.preset,
    profile: task.profile,
    seed: task.seed,
    numInteractions: task.numInteractions,
  });
  const computeMs = Math.round(performance.now() - started);
  const result: SimulationTaskResult = { body: assembleResultBody(task, data, computeMs), computeMs };
  // A hand-made transferable: the value keeps computeMs beside the body while only the body's buffer moves.
  return move({
    [transferableSymbol]: result.body.buffer,
    [valueSymbol]: result,
  } as never) as unknown as SimulationTaskResult;
}
