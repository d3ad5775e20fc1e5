import type { MessagePort } from 'node:worker_threads';
import type { SimulationJobData } from '../shared/jobs/simulationJob.ts';

/**
 * What the main thread hands a pool thread: the job's run specification and the fields the result echoes
 * (the API's version, the format), without where the answer goes, which only the main thread needs.
 */
export interface SimulationTask extends Omit<SimulationJobData, 'runId' | 'deadline' | 'replyTo'> {
  /**
   * For a run too large for one chunk: the thread posts each chunk here as a ThreadChunk as soon as it is
   * printed (its buffer transferred) and, after THREAD_WINDOW_CHUNKS unanswered ones, waits for the main thread to
   * answer one (any message) before it prints more. Absent, the whole body comes back as the result.
   */
  readonly port?: MessagePort;
}

/** A chunk a thread posts: its bytes and the records the run has made through its end. */
export interface ThreadChunk {
  readonly bytes: Uint8Array;
  readonly records: number;
}

/** The message that stops one run in its thread (any other message on the run's port is a credit). */
export const ABORT_RUN = 'abort';

/** Chunks a thread may have posted that the main thread has not yet passed on to the API process. */
export const THREAD_WINDOW_CHUNKS = 2;

/** What a thread hands back: the whole body of a run without a port (else nothing), its compute time. */
export interface SimulationTaskResult {
  readonly body: Uint8Array;
  readonly computeMs: number;
  /** How many chunks were posted on the port: all of a streamed run's. */
  readonly chunks: number;
  /** The records the run made: all of them. */
  readonly records: number;
}
