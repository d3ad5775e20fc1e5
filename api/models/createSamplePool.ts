import { Piscina } from 'piscina';
import type { ModelDefinition, ModelSample } from '../../shared/models/index.ts';

export type SamplePool = Piscina<ModelDefinition, ModelSample>;

const THREAD_ENTRY = new URL('./sampleModelTask.ts', import.meta.url).href;

/**
 * One thread, started on first use, for POST /v1/models/validate's samples: the largest definition the
 * language allows takes about a third of a second to sample (docs/models.md), which on the event loop
 * would stall every other request of the process. Validations wait their turn here instead; the rate
 * limiter bounds how many an account sends.
 */
export const createSamplePool = (): SamplePool =>
  new Piscina<ModelDefinition, ModelSample>({
    filename: THREAD_ENTRY,
    name: 'sampleModelTask',
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: 128 },
  });
