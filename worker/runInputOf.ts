import type { RunInput } from '../shared/engine/presetTypes.ts';
import type { RunSpecification } from '../shared/runs/runSpecification.ts';
import { engineInputOf } from '../shared/runs/engineInputOf.ts';
import { compiledModelOf } from '../shared/models/compiledModelOf.ts';

/** What the engine runs for a specification: its preset, or its model compiled once per thread and version. */
export const runInputOf = (spec: RunSpecification): RunInput => engineInputOf(spec, spec.model === undefined ? undefined : compiledModelOf(spec.model));
