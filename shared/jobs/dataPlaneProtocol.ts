/**
 * The data plane: how a run's bytes travel from the worker that makes them to the API process that waits
 * for them, once, on a direct HTTP/2 connection (docs/architecture.md). BullMQ and Redis keep the control
 * plane (admission, queueing, locks, retries); no result byte crosses Redis.
 *
 * - Every API process listens on a cleartext HTTP/2 port of its own and puts its address in each job it
 *   enqueues (`replyTo`). A worker keeps one session per API address and opens one stream per run:
 *   `POST /runs/<runId>` with the job's BullMQ lock token. The API process checks the token against the
 *   job's lock in Redis, so only the worker that holds the run can answer for it.
 * - The API answers 200 with `bss-offset`: the body bytes its client already has. A first attempt gets 0;
 *   a run taken over by another worker (its first worker died mid-stream) is made again from the start
 *   (the engine is deterministic) and sent from that offset, so the client's body goes on byte-identical.
 * - The request body is a sequence of frames, each an 8-byte header (payload length, then the records the
 *   run has made through the end of this frame, both unsigned 32-bit big-endian) and the payload. The
 *   trailers give the outcome and the run's timings.
 * - Flow control is HTTP/2's own: an API process that stops reading (its client stopped) stops granting
 *   window, the worker's writes wait, and the pool thread waits for credit.
 * - The API ends a run it no longer wants (client gone, deadline) with RST_STREAM NO_ERROR; any other end
 *   of an unfinished stream is a lost link, after which the worker tries again (its run is still wanted).
 */
export const dataPlaneProtocol = {
  path: (runId: string): string => `/runs/${runId}`,
  pathPattern: /^\/runs\/([0-9a-f-]{36})$/,
  headers: {
    lockToken: 'bss-lock-token',
    attempt: 'bss-attempt',
    offset: 'bss-offset',
    outcome: 'bss-outcome',
    computeMs: 'bss-compute-ms',
    startedAt: 'bss-started-at',
    finishedAt: 'bss-finished-at',
  },
  frameHeaderBytes: 8,
  /** Per stream: about four chunks, so a run never waits on the window while its client reads. */
  streamWindowBytes: 1024 * 1024,
  /** Per connection: every run of a busy worker streaming at once. */
  sessionWindowBytes: 64 * 1024 * 1024,
  /** A frame's header: its payload's length and the records made through its end. */
  frameHeader: (length: number, recordsThrough: number): Buffer => {
    const header = Buffer.allocUnsafe(8);
    header.writeUInt32BE(length, 0);
    header.writeUInt32BE(recordsThrough, 4);
    return header;
  },
} as const;
