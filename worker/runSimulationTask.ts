import { move, transferableSymbol, valueSymbol } from 'piscina';
import { CHUNK_BYTES, writeRecordChunks } from '../shared/engine/index.ts';
import { writeParquetChunks } from '../shared/parquet/writeParquetChunks.ts';
import { resultEnvelope } from './resultEnvelope.ts';
import { type SimulationTask, type SimulationTaskResult, THREAD_WINDOW_CHUNKS } from './simulationTask.ts';

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
  // Parquet (a pass-through for the parquet format): its own writer, a pure function of the run's inputs
  // like writeRecordChunks and cut into chunks the same way; no envelope, only the compute time.
  const chunks = format === 'parquet' ? writeParquetChunks(task, {
    // Streamed, its first chunk is its small first row group.
    chunkBytes: port === undefined ? Number.POSITIVE_INFINITY : CHUNK_BYTES,
    onEnd: () => {
      computeMs = Math.round(performance.now() - started);
    },
  }) : writeRecordChunks(task, format, {
    // A small first chunk: the response's first bytes leave while the rest is printed.
    ...(port === undefined ? { chunkBytes: Number.POSITIVE_INFINITY } : { firstChunkBytes: FIRST_CHUNK_BYTES }),
    ...(envelope === undefined ? {} : { head: envelope.head }),
    tail: () => {
      computeMs = Math.round(performance.now() - started);
      return envelope === undefined ? NO_BYTES : envelope.tail(computeMs);
    },
  });

  let credits = THREAD_WINDOW_CHUNKS;
  let wake: (() => void) | undefined;
  port?.on('message', () => {
    credits++;
    wake?.();
  });
  let held: Uint8Array | undefined;
  let posted = 0;
  try {
    for (const chunk of chunks) {
      if (held !== undefined && port !== undefined) {
        while (credits === 0) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
        credits--;
        port.postMessage(held, [held.buffer as ArrayBuffer]);
        posted++;
      }
      held = chunk;
    }
  } finally {
    port?.close();
  }
  const body = held ?? NO_BYTES;
  const result: SimulationTaskResult = { body, computeMs, chunks: posted };
  // A hand-made transferable: the value keeps computeMs beside the body while only the body's buffer moves.
  return move({
    [transferableSymbol]: body.buffer,
    [valueSymbol]: result,
  }) as unknown as SimulationTaskResult;
}
