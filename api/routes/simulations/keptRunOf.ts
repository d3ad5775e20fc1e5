import type { OutputFormat } from '../../../shared/engine/index.ts';
import { recordOf, type RunSpecification } from '../../../shared/runs/runSpecification.ts';
import type { KeptRun } from './keptRunSpecification.ts';

/** What an idempotent POST /v1/simulations keeps of its first answer: the run's record and the format it answered in. */
export const keptRunOf = (spec: RunSpecification, format: OutputFormat): KeptRun => ({ ...recordOf(spec), format });
