/** The queue live streams travel on (docs/streams.md); API and worker agree on it through this constant. */
export const STREAM_QUEUE = 'streams';

/** A stream job's data: which stream, and the quota counter its reservation sits in. No credential. */
export interface StreamJobData {
  readonly streamId: string;
  readonly quotaKey: string;
}
