import { move, transferableSymbol, valueSymbol } from 'piscina';
import { CHUNK_BYTES, writeRecordChunks } from '../shared/engine/index.ts';
import { writeParquetChunks } from '../shared/parquet/writeParquetChunks.ts';
import { outcomeLine } from './outcomeLine.ts';
import { resultEnvelope } from './resultEnvelope.ts';
import { runInputOf } from './runInputOf.ts';
import { ABORT_RUN, type SimulationTask, type SimulationTaskResult, THREAD_WINDOW_CHUNKS, type ThreadChunk } from './simulationTask.ts';

const NO_BYTES = new Uint8Array(0);
const FIRST_CHUNK_BYTES = 16 * 1024;

/**
 * The piscina thread entry: the only place the engine runs in a worker process. Chunks leave the thread as
 * they are printed, their buffers transferred, not copied; the thread waits when the main thread has not
 * passed the previous ones on, so a slow reader slows the printing instead of filling memory. A run
 * without a port (a small one) is one chunk, the task's result, transferred too.
 */
export async function runSimulationTask(task: SimulationTask): Promise<SimulationTaskResult> {
  const started = performance.now();
  const { port, format, outcomeLine: withOutcome } = task;
  const envelope = format === 'json' ? resultEnvelope(task) : undefined;
  // A model is compiled here, in the thread that runs it (cached by digest), never sent compiled.
  const input = runInputOf(task);
  let computeMs = 0;
  const progress = { records: 0 };
  // Parquet (a pass-through for the parquet format): its own writer, a pure function of the run's inputs
  // like writeRecordChunks and cut into chunks the same way; no envelope, only the compute time.
  const chunks = format === 'parquet' ? writeParquetChunks(input, {
    // Streamed, its first chunk is its small first row group.
    chunkBytes: port === undefined ? Number.POSITIVE_INFINITY : CHUNK_BYTES,
    progress,
    onEnd: () => {
      computeMs = Math.round(performance.now() - started);
    },
  }) : writeRecordChunks(input, format, {
    // A small first chunk: the response's first bytes leave while the rest is printed.
    ...(port === undefined ? { chunkBytes: Number.POSITIVE_INFINITY } : { firstChunkBytes: FIRST_CHUNK_BYTES }),
    ...(envelope === undefined ? {} : { head: envelope.head }),
    progress,
    tail: (outcome) => {
      computeMs = Math.round(performance.now() - started);
      if (envelope !== undefined) return envelope.tail(computeMs, outcome);
      // A dataset's run: the engine's outcome as the body's last line (shared/jobs/simulationJob.ts).
      return withOutcome === true ? outcomeLine(outcome) : NO_BYTES;
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
  // Without a port the run is one chunk, the task's result. With one, each chunk is posted as soon as it
  // is printed (the first, small one included: the response's first bytes must not wait for a second
  // chunk to be printed) and the result carries no bytes.
  // A buffer of its own: the result's is transferred (detached), so never the shared NO_BYTES.
  let body: Uint8Array = new Uint8Array(0);
  let posted = 0;
  try {
    for (const bytes of chunks) {
      if (port === undefined) {
        body = bytes;
        continue;
      }
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
      const chunk: ThreadChunk = { bytes, records: progress.records };
      port.postMessage(chunk, [bytes.buffer as ArrayBuffer]);
      posted++;
      // A thread serves several runs at once (piscina's concurrentTasksPerWorker): after each chunk the
      // others get their turn, so a large run never holds a thread from the small ones queued behind it.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    port?.close();
  }
  const result: SimulationTaskResult = { body, computeMs, chunks: posted, records: progress.records };
  // A hand-made transferable: the value keeps computeMs beside the body while only the body's buffer moves.
  return move({
    [transferableSymbol]: body.buffer,
    [valueSymbol]: result,
  }) as unknown as SimulationTaskResult;
}
