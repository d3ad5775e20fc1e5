import http2 from 'node:http2';
import { MessageChannel } from 'node:worker_threads';
import { dataPlaneProtocol } from '../shared/jobs/dataPlaneProtocol.ts';
import type { DataPlaneClient } from './createDataPlaneClient.ts';
import type { SimulationPool } from './pool.ts';
import { ABORT_RUN, type SimulationTask, type SimulationTaskResult, type ThreadChunk } from './simulationTask.ts';

const { headers: HEADERS, frameHeader } = dataPlaneProtocol;

/** Frees a buffer's memory now rather than at a collection: detached, it holds no bytes. */
const freeBuffer = (bytes: Uint8Array): void => {
  (bytes.buffer as ArrayBuffer).transfer(0);
};

/**
 * How one attempt to deliver a run ended:
 * - `delivered`: the API process has the whole body and the outcome;
 * - `stopped`: the API process ended the run for its client (it left, stopped reading, or held the run on
 *   its back-pressure until the deadline: settled `cancelled`, the client's doing: docs/fair-use.md);
 * - `refused`: no API process waits for this run, or not from this worker (a lock it does not hold);
 * - `lost`: the link broke first; the run is still wanted, so another attempt resumes it;
 * - `deadline`: the deadline passed with the service behind (the API process said so, or never answered);
 * - `failed`: the engine failed; the API process has been told.
 */
export type SendOutcome = 'delivered' | 'stopped' | 'refused' | 'lost' | 'deadline' | 'failed';

/**
 * How long after the deadline a worker gives up on a run by its own clock. The API process, which sees the
 * client, says at the deadline whose doing it was (by how it closes the stream); this is the backstop for
 * one that cannot say (docs/fair-use.md#whose-deadline).
 */
const DEADLINE_BACKSTOP_MS = 2000;

export interface SendRunOptions {
  readonly dataPlane: DataPlaneClient;
  /** The waiting API process's data plane address (the job's `replyTo`). */
  readonly address: string;
  readonly runId: string;
  /** The job's BullMQ lock token: the API process checks it against the job's lock. */
  readonly token: string;
  readonly attempt: number;
  readonly pool: SimulationPool;
  readonly task: SimulationTask;
  /** Whether the run goes chunk by chunk through a port, or as one body. */
  readonly streamed: boolean;
  readonly startedAt: number;
  readonly deadline: number;
}

/**
 * One attempt to run a job and deliver it to its API process: open the run's stream, learn from the answer
 * where the client's body stands, make the run (again, if this is a resumption: the engine is
 * deterministic) and send what the client does not have yet, frame by frame, at the pace the API process
 * takes it. The thread waits for a credit after each chunk, so a slow client slows the engine instead of
 * filling memory anywhere between.
 */
export const sendRun = async (options: SendRunOptions): Promise<SendOutcome> => {
  const { runId, task, streamed } = options;
  const stream = options.dataPlane.open(options.address, {
    ':method': 'POST',
    ':path': dataPlaneProtocol.path(runId),
    [HEADERS.lockToken]: options.token,
    [HEADERS.attempt]: String(options.attempt),
  });
  let status: number | undefined;
  let offset = 0;
  let finished = false;
  let wakeDrain: (() => void) | undefined;
  const overDeadline = (): boolean => Date.now() >= options.deadline;
  const response = new Promise<boolean>((resolve) => {
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
      offset = Number(headers[HEADERS.offset] ?? 0);
      resolve(status === 200 && Number.isSafeInteger(offset) && offset >= 0);
    });
    stream.on('close', () => resolve(false));
  });
  const closed = new Promise<SendOutcome>((resolve) => {
    // A stream closed with NO_ERROR was ended by the API process: at the end of a run it has whole (it
    // answers once it has the trailers), else for its client. Any other code is a lost link (CANCEL when
    // a session dies) or, past the deadline, the service behind: the API process closes a run it settles
    // `timed_out` with CANCEL, and this worker's own backstop does too.
    stream.on('close', () => {
      wakeDrain?.();
      if (status === undefined) {
        resolve('lost');
      } else if (status !== 200) {
        resolve('refused');
      } else if (stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) {
        resolve(overDeadline() ? 'deadline' : 'lost');
      } else if (finished) {
        resolve('delivered');
      } else {
        // Ended by the API process for its client, before the deadline or at it (docs/fair-use.md).
        resolve('stopped');
      }
    });
    // What failed is read from the close: the code and the state, not the error.
    stream.on('error', () => {});
  });
  stream.resume();

  const deadlineTimer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), Math.max(0, options.deadline + DEADLINE_BACKSTOP_MS - Date.now()));

  let skip = 0;
  /**
   * Frames go out in order; a frame whose bytes the client already has is left out (a resumed run). With
   * `release`, the chunk's buffer is freed once the session has written it: a dropped buffer is freed only
   * by a collection, which this thread, allocating little, runs only after tens of MB of them
   * (docs/architecture.md#a-workers-memory).
   */
  const writeFrame = (bytes: Uint8Array, records: number, release = false): boolean => {
    let payload = bytes;
    if (skip > 0) {
      const cut = Math.min(skip, payload.length);
      skip -= cut;
      payload = payload.subarray(cut);
    }
    if (payload.length === 0 || stream.closed || stream.destroyed) {
      if (release) freeBuffer(bytes);
      return true;
    }
    stream.write(frameHeader(payload.length, records));
    // Only after a write that succeeded: a failed one may end before the session has let go of the bytes.
    return stream.write(payload, (error) => {
      if (release && error == null) freeBuffer(bytes);
    });
  };
  const drained = (): Promise<void> =>
    new Promise<void>((resolve) => {
      wakeDrain = resolve;
      stream.once('drain', resolve);
    }).finally(() => {
      wakeDrain = undefined;
    });
  const finish = (result: { outcome: 'completed' | 'failed'; computeMs: number }): void => {
    finished = true;
    stream.once('wantTrailers', () =>
      stream.sendTrailers({
        [HEADERS.outcome]: result.outcome,
        [HEADERS.computeMs]: String(result.computeMs),
        [HEADERS.startedAt]: String(options.startedAt),
        [HEADERS.finishedAt]: String(Date.now()),
      }),
    );
    stream.end();
  };

  try {
    if (!streamed) {
      // A run that fits one chunk is made while the API process checks the stream, then sent whole.
      const computing = options.pool.run(task);
      computing.catch(() => {});
      if (!(await response)) {
        return await closed;
      }
      skip = offset;
      let result: SimulationTaskResult;
      try {
        result = await computing;
      } catch {
        finish({ outcome: 'failed', computeMs: 0 });
        await closed;
        return 'failed';
      }
      writeFrame(result.body, result.records);
      finish({ outcome: 'completed', computeMs: result.computeMs });
      return await closed;
    }

    if (!(await response)) {
      return await closed;
    }
    skip = offset;
    const channel = new MessageChannel();
    const port = channel.port1;
    let writing = Promise.resolve();
    let received = 0;
    let allReceived: (() => void) | undefined;
    let expected = Number.POSITIVE_INFINITY;
    port.on('message', (chunk: ThreadChunk) => {
      received++;
      if (received >= expected) {
        allReceived?.();
      }
      writing = writing.then(async () => {
        // The chunk's buffer is this thread's alone (transferred from the pool thread): freed once written.
        if (!writeFrame(chunk.bytes, chunk.records, true) && !stream.closed && !stream.destroyed) {
          await drained();
        }
        // The chunk has left: the thread may make another.
        port.postMessage(1);
      });
    });
    const stop = (): void => port.postMessage(ABORT_RUN);
    stream.once('close', stop);
    let result: SimulationTaskResult;
    try {
      result = await options.pool.run({ ...task, port: channel.port2 }, { transferList: [channel.port2] as never });
      // The task's result and its port's messages travel apart: the last chunks may still be on their way.
      expected = result.chunks;
      if (received < expected && !stream.closed && !stream.destroyed) {
        await new Promise<void>((resolve) => {
          allReceived = resolve;
          stream.once('close', resolve);
        });
      }
      await writing;
    } catch {
      if (stream.closed || stream.destroyed) {
        return await closed;
      }
      finish({ outcome: 'failed', computeMs: 0 });
      await closed;
      return 'failed';
    } finally {
      stream.off('close', stop);
      port.close();
    }
    if (stream.closed || stream.destroyed) {
      // Given up on while it ran: the thread was told to stop, and what it returned is not the run.
      return await closed;
    }
    writeFrame(result.body, result.records);
    finish({ outcome: 'completed', computeMs: result.computeMs });
    return await closed;
  } finally {
    clearTimeout(deadlineTimer);
  }
};
