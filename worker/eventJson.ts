import type { PlacedEvent, ScenarioEvent } from '../shared/engine/scenario.ts';

/**
 * One scenario event as the result's `scenario` (and a dataset run's outcome line) prints it, its keys in
 * one order: an event names at_step or (engine 4) at_time, in the place at_step has; a placed event
 * always its step.
 */
export const eventJson = (event: ScenarioEvent | PlacedEvent): string => {
  const { type, sequence, at_step, duration, intensity } = event;
  const at_time = 'at_time' in event ? event.at_time : undefined;
  return at_time === undefined ? JSON.stringify({ type, sequence, at_step, duration, intensity }) : JSON.stringify({ type, sequence, at_time, duration, intensity });
};
