import type { PlacedEvent, ScenarioEvent, ScenarioOutcome } from '../scenario.ts';

/**
 * One run's scenario outcome from its subjects' (engine 4 in `order: "time"` runs a population of them, each
 * with its own schedule): every placed event, by sequence and step (the order one subject notes them in),
 * and the listed events none of them placed. Subjects without a scenario give nothing.
 */
export function mergeScenarioOutcomes(outcomes: readonly (ScenarioOutcome | undefined)[]): ScenarioOutcome {
  const given = outcomes.filter((outcome): outcome is ScenarioOutcome => outcome !== undefined);
  const placed: PlacedEvent[] = given.flatMap((outcome) => outcome.placed);
  placed.sort((a, b) => a.sequence - b.sequence || a.at_step - b.at_step);
  // Every subject lists the same event objects (the run's scenario): unplaced where all left it so.
  const [first, ...rest] = given;
  const unplaced: ScenarioEvent[] = (first?.unplaced ?? []).filter((event) => rest.every((outcome) => outcome.unplaced.includes(event)));
  return { placed, unplaced };
}
