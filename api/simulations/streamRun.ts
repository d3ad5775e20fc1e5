import type { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { CHUNK_BYTES, type OutputFormat } from '../../shared/engine/index.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { ClientAbortedError, internalError, simulationTimeout } from '../../shared/errors/errors.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import type { SimulationOutcome, SimulationSink } from './createSimulationClient.ts';
import type { SendQueueReader } from './createSendQueueReader.ts';

/** What streaming a run needs of its process. */
export interface StreamRunDependencies {
  readonly config: Config;
  readonly logger: Logger;
  /** What the kernel still holds for each client connection: where stream stalls are measured. */
  readonly sendQueues: SendQueueReader;
}

export interface RunOptions {
  /** JSON when absent. */
  readonly format?: OutputFormat;
  /** Aborted when the client goes away: the run is stopped in its thread and settled cancelled. */
  readonly signal?: AbortSignal;
  /**
   * The client's connection, where a stall is measured; without it, what left the body for the response
   * counts as taken.
   */
  readonly connection?: Socket;
}

/** The client took no bytes for STREAM_STALL_TIMEOUT_MS: it is treated as gone. */
class ClientStalledError extends Error {}

/** A value that changes whenever the client has taken more of its body. */
type Progress = () => Promise<string>;

/**
 * What the client has taken, seen at the client's side of its connection: the socket's bytes handed to the
 * kernel, and what the kernel still holds for the client. The kernel takes a slow reader's bytes in
 * bursts of a megabyte or more (it wakes a writer only once a third of its buffer is free), so what
 * left the socket alone would show a reader at 100 KB/s as stalled for seconds at a time; acknowledgements
 * shrink what the kernel holds as the client reads (docs/fair-use.md).
 */
const connectionProgress =
  (deps: StreamRunDependencies, connection: Socket): Progress =>
  async () => {
    const handed = connection.bytesWritten - connection.writableLength;
    const held = await deps.sendQueues.read(connection);
    return `${String(handed)}/${String(held)}`;
  };

/**
 * Waits until `body` can take more, or rejects once its client has taken nothing for `stallMs` (measured
 * by `progress`) or went away. A client reading slowly is never cut off.
 */
const drained = (body: PassThrough, progress: Progress, stallMs: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    let lastTaken: string | undefined;
    let lastProgress = Date.now();
    let checking = false;
    const look = async (): Promise<void> => {
      const now = await progress();
      if (now !== lastTaken) {
        lastTaken = now;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress >= stallMs) {
        done(new ClientStalledError('the client stopped reading'));
      }
    };
    // One look at a time: a reading of the kernel's tables may outlast a tick.
    const tick = (): void => {
      if (checking) {
        return;
      }
      checking = true;
      look().then(
        () => {
          checking = false;
        },
        () => {
          checking = false;
        },
      );
    };
    const check = setInterval(tick, Math.min(1000, Math.max(25, Math.floor(stallMs / 4))));
    // A check, not work: it never keeps a stopping process alive.
    check.unref();
    const onDrain = (): void => done();
    const onGone = (): void => done(new ClientAbortedError());
    let settled = false;
    const done = (error?: Error): void => {
      if (settled) {
        return;
      }
      settled = true;
      clearInterval(check);
      body.off('drain', onDrain);
      body.off('close', onGone);
      signal?.removeEventListener('abort', onGone);
      if (error === undefined) {
        resolve();
      } else {
        reject(error);
      }
    };
    body.on('drain', onDrain);
    body.on('close', onGone);
    signal?.addEventListener('abort', onGone);
    if (signal?.aborted === true) {
      onGone();
      return;
    }
    tick();
  });

/**
 * The streaming half shared by a new run and a replay: `run` gets the sink the worker's chunks go to and
 * resolves with the run's outcome once whatever must happen before the last bytes (settlement) is done.
 * Resolves with the bytes the worker wrote, never parsed here: a small run's whole body, or a stream once
 * the first chunk is in, which ends with the last bytes (after `run` resolved: settlement), or is
 * destroyed (no terminating chunk) if the run fails.
 */
export const streamRun = async (
  deps: StreamRunDependencies,
  simulationId: string,
  options: RunOptions,
  run: (sink: SimulationSink) => Promise<SimulationOutcome>,
): Promise<Buffer | Readable> => {
  let stream: PassThrough | undefined;
  let written = 0;
  const progress: Progress =
    options.connection === undefined
      ? () => Promise.resolve(String(written - (stream?.writableLength ?? 0) - (stream?.readableLength ?? 0)))
      : connectionProgress(deps, options.connection);
  let streaming: (body: PassThrough) => void = () => {};
  const started = new Promise<PassThrough>((resolve) => {
    streaming = resolve;
  });
  const sink: SimulationSink = {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    write: async (chunk) => {
      if (stream === undefined) {
        stream = new PassThrough({ highWaterMark: CHUNK_BYTES });
        streaming(stream);
      }
      written += chunk.length;
      if (!stream.write(chunk)) {
        // The client reads slower than the run is made: wait, and let the wait reach the worker; a client
        // that takes nothing for the stall timeout is ended like one that left.
        await drained(stream, progress, deps.config.streamStallTimeoutMs, options.signal);
      }
    },
  };

  const finished = (async (): Promise<Buffer> => {
    const outcome = await run(sink);
    switch (outcome.status) {
      case 'completed':
        return outcome.body;
      case 'timed_out':
        throw simulationTimeout(deps.config.simulationTimeoutMs);
      case 'failed':
        throw internalError();
      case 'cancelled':
        throw new ClientAbortedError();
    }
  })();

  const first = await Promise.race([started, finished]);
  if (Buffer.isBuffer(first)) {
    return first;
  }
  void finished.then(
    (last) => first.end(last),
    (error: unknown) => {
      if (error instanceof ClientAbortedError) {
        // Its client left, stopped reading, or has the range it asked for: nothing failed.
        deps.logger.debug({ simulation_id: simulationId }, 'simulation stopped mid-stream; its client is done');
      } else {
        deps.logger.warn({ simulation_id: simulationId, error: describeError(error) }, 'simulation failed mid-stream; response cut');
      }
      // Destroying the body ends the response without its terminating chunk: never a body that looks whole.
      first.destroy(error instanceof Error ? error : new Error(String(error)));
    },
  );
  return first;
};
