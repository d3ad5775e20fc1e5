import { move, transferableSymbol, valueSymbol } from 'piscina';
import { CHUNK_BYTES, writeRecordChunks } from '../shared/engine/index.ts';
import { writeParquetChunks } from '../shared/parquet/writeParquetChunks.ts';
import { resultEnvelope } from './resultEnvelope.ts';
import { ABORT_RUN, type SimulationTask, type SimulationTaskResult, THREAD_WINDOW_CHUNKS, type ThreadChunk } from './simulationTask.ts';

const NO_BYTES = new Uint8Array(0);
const FIRST_CHUNK_BYTES = 16 * 1024;

/**
 * The piscina thread entry: the only place the engine runs in a worker process. Chunks leave the thread as
 * they are printed, their buffers transferred, not copied; the thread waits when the main thread has not
 * passed the previous ones on, so a slow reader slows the printing instead of filling memory. Its last
 * chunk (the whole body of a small run) is the task's result, transferred too.
 */
export async function runSimulationTask(task: SimulationTask): Promise<SimulationTaskResult> {
  const started = performance.now();
  const { port, format } = task;
  const envelope = format === 'json' ? resultEnvelope(task) : undefined;
  let computeMs = 0;
  const progress = { records: 0 };
  // Parquet (a pass-through for the parquet format): its own writer, a pure function of the run's inputs
  // like writeRecordChunks and cut into chunks the same way; no envelope, only the compute time.
  const chunks = format === 'parquet' ? writeParquetChunks(task, {
    // Streamed, its first chunk is its small first row group.
    chunkBytes: port === undefined ? Number.POSITIVE_INFINITY : CHUNK_BYTES,
    progress,
    onEnd: () => {
      computeMs = Math.round(performance.now() - started);
    },
  }) : writeRecordChunks(task, format, {
    // A small first chunk: the response's first bytes leave while the rest is printed.
    ...(port === undefined ? { chunkBytes: Number.POSITIVE_INFINITY } : { firstChunkBytes: FIRST_CHUNK_BYTES }),
    ...(envelope === undefined ? {} : { head: envelope.head }),
    progress,
    tail: () => {
      computeMs = Math.round(performance.now() - started);
      return envelope === undefined ? NO_BYTES : envelope.tail(computeMs);
    },
  });

  let credits = THREAD_WINDOW_CHUNKS;
  let aborted = false;
  let wake: (() => void) | undefined;
  // A number is a credit (a chunk passed on); ABORT_RUN stops this run alone. A thread serves several runs,
  // so a run is never stopped by terminating its thread.
  port?.on('message', (message: unknown) => {
    if (message === ABORT_RUN) {
      aborted = true;
    } else {
      credits++;
    }
    wake?.();
  });
  let held: ThreadChunk | undefined;
  let posted = 0;
  try {
    for (const chunk of chunks) {
      if (held !== undefined && port !== undefined) {
        while (credits === 0 && !aborted) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
        if (aborted) {
          // The main thread has given up on this run and ignores whatever else comes.
          break;
        }
        credits--;
        port.postMessage(held, [held.bytes.buffer as ArrayBuffer]);
        posted++;
        // A thread serves several runs at once (piscina's concurrentTasksPerWorker): after each chunk the
        // others get their turn, so a large run never holds a thread from the small ones queued behind it.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      held = { bytes: chunk, records: progress.records };
    }
  } finally {
    port?.close();
  }
  const body = held?.bytes ?? NO_BYTES;
  const result: SimulationTaskResult = { body, computeMs, chunks: posted, records: progress.records };
  // A hand-made transferable: the value keeps computeMs beside the body while only the body's buffer moves.
  return move({
    [transferableSymbol]: body.buffer,
    [valueSymbol]: result,
  }) as unknown as SimulationTaskResult;
}
