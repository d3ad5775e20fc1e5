import type { RunDependencies } from '../runs/RunDependencies.ts';
import type { LengthMeasurements } from './createLengthMeasurements.ts';

/** What serving a run's records needs of its process (api/Services.ts is one of these), passed in. */
export interface BulkDependencies extends RunDependencies {
  /** Body lengths being measured in this process, shared by the requests that wait on one (createLengthMeasurements.ts). */
  readonly lengthMeasurements: LengthMeasurements;
}
