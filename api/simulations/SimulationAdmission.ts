import type { AdmissionTerms, RunLease } from './createRunLease.ts';

/** What admission took for a request, and the lease that hands it back when the run ends. */
export interface SimulationAdmission extends AdmissionTerms {
  readonly lease: RunLease;
  /** A new run's seed, final from admission on (its in-flight entry records it); absent for a replay. */
  readonly seed?: number;
}
