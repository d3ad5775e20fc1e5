import { engineModels } from '../../shared/engine/engineVersions.ts';
import type { PresetName } from '../../shared/engine/index.ts';

/** The archive layouts of GET /v1/simulations/{id}/dataset (DECISIONS fourth wave, "Benchmark datasets"). */
export const DATASET_LAYOUTS = ['timeeval', 'nab'] as const;
export type DatasetLayout = (typeof DATASET_LAYOUTS)[number];

// Identifiers, not measurements: never a value column.
const NOT_VALUES = new Set(['sequence_id', 'interaction_id']);

/** The record fields a detector reads as values, in record order: every integer and decimal but the ids. */
export const numericFields = (serviceVersion: string, preset: PresetName): readonly string[] =>
  (engineModels(serviceVersion)?.[preset].fields ?? [])
    .filter((field) => field.kind !== 'enum' && !NOT_VALUES.has(field.name))
    .map((field) => field.name);
