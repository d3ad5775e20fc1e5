import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { SimulationRequest } from '../sdk/index.ts';

type ScenarioRequest = NonNullable<SimulationRequest['scenario']>;

/**
 * `--scenario <json or @file>`: a scenario object as JSON, inline or read from a file (`@crash.json`).
 * Only its syntax is checked here (JSON, an object with an `events` array); its fields are the service's
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
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Array.isArray((parsed as { events?: unknown }).events)) {
    throw new InvalidArgumentError('expected a JSON object with an "events" array: {"events": [{"type", "sequence", "at_step", "duration"}]}.');
  }
  return parsed as ScenarioRequest;
};
