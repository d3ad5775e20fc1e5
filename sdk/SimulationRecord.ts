/** One record as the API sends it: `sequence_id`, `interaction_id`, `state` and the preset's fields. */
export type SimulationRecord = Record<string, number | string>;
