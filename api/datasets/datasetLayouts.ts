import { engineModels } from '../../shared/engine/engineVersions.ts';
import type { PresetName } from '../../shared/engine/index.ts';
import type { ModelSpecification } from '../../shared/runs/runSpecification.ts';

/** The archive layouts of GET /v1/simulations/{id}/dataset (docs/datasets.md#2-the-archive). */
export const DATASET_LAYOUTS = ['timeeval', 'nab'] as const;
export type DatasetLayout = (typeof DATASET_LAYOUTS)[number];

// Identifiers, not measurements: never a value column.
const NOT_VALUES = new Set(['sequence_id', 'interaction_id']);

/**
 * The record fields a detector reads as values, in record order: every integer and decimal but the ids; of
 * an account model, its `integer` and `number` fields (they follow the ids and the state: docs/models.md).
 */
export const numericFields = (serviceVersion: string, preset: string, model: ModelSpecification | undefined): readonly string[] =>
  model !== undefined
    ? model.definition.fields.filter((field) => field.type !== 'string').map((field) => field.name)
    : (engineModels(serviceVersion)?.[preset as PresetName].fields ?? [])
        .filter((field) => field.kind !== 'enum' && field.kind !== 'timestamp' && !NOT_VALUES.has(field.name))
        .map((field) => field.name);
