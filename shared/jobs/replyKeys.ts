/**
 * The reply path between workers and the API process waiting for a run (README "Output formats,
 * streaming and the Redis memory bound").
 *
 * - Every API process reads one Redis Stream, its reply stream: workers append a run's chunks and its
 *   final entry there, and the process deletes each entry once read. A stream, not Pub/Sub, so an entry
 *   appended while the reader is reconnecting is read when it is back, from the last id it saw.
 * - A run's chunks wait for acknowledgement: a worker has at most STREAM_WINDOW_CHUNKS chunks of a run in
 *   Redis that the API process has not yet handed to its client, so Redis holds at most
 *   STREAM_WINDOW_CHUNKS x (CHUNK_BYTES + a record) bytes of entries per streaming run, whatever the
 *   run's size (plus at most as much again in each of the worker's input and the reader's output buffers).
 * - Acknowledgements (and aborts) go back on the worker's control channel, and into a short-lived key the
 *   worker reads if a notice was lost while its subscriber reconnected.
 */

/** A reply stream, a control key or an ack key outlives its reader by at most this long. */
export const REPLY_TTL_MS = 60_000;

/** Chunks of one run in Redis that its API process has not acknowledged yet. */
export const STREAM_WINDOW_CHUNKS = 8;

/**
 * The reply stream of one API process. Its keys share the `{processId}` hash tag, so the process deletes
 * them in one command on a Redis Cluster too.
 */
export const replyStreamKey = (prefix: string, processId: string): string => `${prefix}:simulation-replies:{${processId}}`;

/**
 * Present as long as the API process's Redis data is: when it is gone (FLUSHALL, a restart without
 * persistence), so are the jobs and replies the process waits for, and it answers 503 at once.
 */
export const replyAliveKey = (prefix: string, processId: string): string => `${prefix}:simulation-replies-alive:{${processId}}`;

/**
 * The Pub/Sub channel of one worker process, on which API processes acknowledge chunks or abort runs. On a
 * Redis Cluster it is a sharded channel (SPUBLISH/SSUBSCRIBE): a notice goes to its slot's shard only,
 * not to every node.
 */
export const controlChannel = (prefix: string, workerId: string): string => `${prefix}:simulation-control:${workerId}`;

/** How many chunks of a run its API process has taken, or `abort`. */
export const simulationAckKey = (prefix: string, simulationId: string): string => `${prefix}:simulation-ack:${simulationId}`;

/** The control message naming a run's acknowledged chunk count, or that it is to be aborted. */
export const controlMessage = (simulationId: string, acked: number | 'abort'): string => `${simulationId} ${acked}`;
