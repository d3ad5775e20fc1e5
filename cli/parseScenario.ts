import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { SimulationRequest } from '../sdk/index.ts';

type ScenarioRequest = NonNullable<SimulationRequest['scenario']>;

/**
 * `--scenario <json or @file>`: a scenario object as JSON, inline or read from a file (`@crash.json`).
 * Only its syntax is checked here (JSON, an object with an `events` array or a `random` object); its fields are the service's
 * to judge, with a 422 that names each bad one. A malformed value is a malformed command line (exit 2).
 */
export const parseScenario = (value: string): ScenarioRequest => {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new InvalidArgumentError(`cannot read ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`not JSON (${(error as Error).message}); expected {"events": [{"type", "sequence", "at_step", "duration"}]}.`);
  }
  const scenario = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as { events?: unknown; random?: unknown }) : undefined;
  const random = scenario?.random;
  if (scenario === undefined || !(Array.isArray(scenario.events) || (typeof random === 'object' && random !== null && !Array.isArray(random)))) {
    throw new InvalidArgumentError(
      'expected a JSON object with an "events" array or a "random" object: {"events": [{"type", "sequence", "at_step", "duration"}]} or {"random": {"types", "per_sequence", "duration", "intensity"}}.',
    );
  }
  return scenario as ScenarioRequest;
};
