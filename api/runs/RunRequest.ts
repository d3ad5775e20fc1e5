import type { RunSpecification } from '../../shared/runs/runSpecification.ts';

/**
 * A request the parse stage resolved (the canonical preset, or the model version with `preset` its name;
 * the profile to use; the exact engine): the run's specification but for what admission decides, its
 * simulation id and, when the request gave none, its seed.
 */
export type RunRequest = Omit<RunSpecification, 'simulationId' | 'seed'> & { readonly seed: number | undefined };
