import { createSimulation } from './createSimulation.ts';
import type { SimulationInput } from './presetTypes.ts';
import type { ScenarioOutcome } from './scenario.ts';

/**
 * What a run makes of its scenario, by running it without printing a record (tests, and any consumer that
 * wants `placed` without the records): the same outcome the result's tail prints.
 */
export function scenarioOutcomeOf(input: SimulationInput): ScenarioOutcome {
  const { simulator, count } = createSimulation(input);
  for (let i = 0; i < count; i++) simulator.next();
  const outcome = simulator.scenarioOutcome?.();
  if (outcome === undefined) throw new RangeError('this engine has no scenarios');
  return outcome;
}
