/**
 * One record as the API sends it: `sequence_id`, `interaction_id`, `state` and the preset's fields; on
 * engine 3 also `scenario_event`, null outside a scenario event.
 */
export type SimulationRecord = Record<string, number | string | null>;
