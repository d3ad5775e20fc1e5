import { z } from 'zod';
import { runTimingSchema } from '../engine/runTimingSchema.ts';
import { scenarioSchema } from '../engine/scenarioSchema.ts';
import type { ModelDefinition } from '../models/index.ts';

/** The most interactions one run may ask for: the largest plan's per-request maximum. */
const MAX_RUN_INTERACTIONS = 1_000_000;

/** A model run's identity, as the result, the history, the ledger and `Simulation-Model` name it. */
export const modelReferenceSchema = z.object({
  name: z.string().min(1).max(40),
  version: z.int().min(1),
  /** `sha256:` + hex of the canonical definition. */
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});

export type ModelReference = z.infer<typeof modelReferenceSchema>;

/**
 * The model version a run is made from, definition included: the worker checks it again and compiles it
 * (cached by digest) without reading the database. A definition is no secret of anyone's and at most 64 KiB.
 */
const modelSpecificationSchema = modelReferenceSchema.extend({
  definition: z.custom<ModelDefinition>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'a model definition is an object'),
});

export type ModelSpecification = z.infer<typeof modelSpecificationSchema>;

/**
 * What a run is made from, under one name and one shape wherever it travels (docs/architecture.md, "A
 * run's one shape"): the job on the queue and the task a pool thread runs extend it; the idempotency
 * record, the in-flight entry and the ledger row hold its record (`runRecordSchema`, the model named
 * rather than included). The engine is deterministic, so the same specification makes the same bytes.
 *
 * `simulationId` is the simulation the run makes (its body, its headers, its ledger row); a replay makes
 * a recorded simulation again under a run id of its own (the job's, the slot's), so the two may differ.
 */
export const runSpecificationSchema = z.object({
  simulationId: z.uuid(),
  /** The canonical preset's name, or the model's name for a model run (the result's `preset`). */
  preset: z.string().min(1).max(64),
  /** The model version a model run is made from; absent for a preset run. */
  model: modelSpecificationSchema.optional(),
  profile: z.string().min(1).max(64),
  seed: z.int().min(0).max(4_294_967_295),
  numInteractions: z.int().min(1).max(MAX_RUN_INTERACTIONS),
  /** The exact engine version that makes the run (the result's metadata.service_version). */
  serviceVersion: z.string().min(1).max(32),
  /** Engine 3's scenario as validated (intensity filled); absent for a run without one. */
  scenario: scenarioSchema.optional(),
  /** Engine 4's start_time, order and population, defaults filled; absent on engines before 4. */
  timing: runTimingSchema.optional(),
});

export type RunSpecification = z.infer<typeof runSpecificationSchema>;

/** A specification as it is recorded (idempotency record, in-flight entry, ledger row): its model named, not included. */
export const runRecordSchema = runSpecificationSchema.extend({ model: modelReferenceSchema.optional() });

export type RunRecord = z.infer<typeof runRecordSchema>;

/** A specification's record (or a part of one's): the same fields, its model version without the definition. */
export const recordOf = <Spec extends { readonly model?: ModelSpecification | undefined }>(spec: Spec): Omit<Spec, 'model'> & { readonly model?: ModelReference } => {
  if (spec.model === undefined) {
    return spec;
  }
  const { definition: _definition, ...model } = spec.model;
  return { ...spec, model };
};
