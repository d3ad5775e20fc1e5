/** A stream job's data: which stream, and the quota counter its reservation sits in. No credential. */
export interface StreamJobData {
  readonly streamId: string;
  readonly quotaKey: string;
}
