import { MessageChannel } from 'node:worker_threads';
import test from 'ava';
import { valueSymbol } from 'piscina';
import { CHUNK_BYTES } from '../../shared/engine/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { estimateParquetBytes } from '../../shared/parquet/estimateParquetBytes.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';
import { runSimulationTask } from '../../worker/runSimulationTask.ts';
import { type SimulationTask, type SimulationTaskResult, THREAD_WINDOW_CHUNKS, type ThreadChunk } from '../../worker/simulationTask.ts';
import { readParquet } from './readParquet.ts';

const TASK = {
  simulationId: '00000000-0000-4000-8000-000000000000',
  preset: 'finance',
  profile: 'growth_investor',
  seed: 99,
  numInteractions: 200_000,
  serviceVersion: '2.0.0',
  apiVersion: '1.0.0',
  format: 'parquet',
} as const;

/** The thread entry's result as piscina hands it on: the value inside its transferable wrapper. */
const runTask = async (task: SimulationTask): Promise<SimulationTaskResult> =>
  ((await runSimulationTask(task)) as unknown as Record<symbol, SimulationTaskResult>)[valueSymbol]!;

// The thread entry itself (runSimulationTask), in this thread: what a pool thread does with a Parquet task.
test('a 200,000-record Parquet task leaves its thread in several chunks, the first before the run ends, never more than the window ahead', async (t) => {
  t.true(estimateParquetBytes(TASK) > CHUNK_BYTES, 'the worker streams a run this size');
  const channel = new MessageChannel();
  const received: Uint8Array[] = [];
  const recordsThrough: number[] = [];
  let acknowledged = 0;
  let mostAhead = 0;
  let ended = false;
  let firstBeforeEnd = false;
  channel.port1.on('message', (chunk: ThreadChunk) => {
    received.push(chunk.bytes);
    recordsThrough.push(chunk.records);
    firstBeforeEnd ||= received.length === 1 && !ended;
    mostAhead = Math.max(mostAhead, received.length - acknowledged);
    // Acknowledged a turn later, as the worker's main thread does once the chunk has left for the API.
    setImmediate(() => {
      acknowledged++;
      channel.port1.postMessage(1);
    });
  });
  const result = await runTask({ ...TASK, port: channel.port2 });
  ended = true;
  // The result and the chunks travel on different ports: the last chunks may still be on their way.
  await eventually(() => (received.length >= result.chunks ? true : undefined), 5_000, 10);
  channel.port1.close();
  t.true(firstBeforeEnd, 'the first chunk was out before the task ended');
  t.is(received.length, result.chunks);
  t.true(received.length >= 8, `${received.length} chunks`);
  t.true(mostAhead <= THREAD_WINDOW_CHUNKS, `${mostAhead} chunks unacknowledged at once`);
  t.true(received.every((chunk) => chunk.byteLength <= CHUNK_BYTES));
  // Each chunk says the rows written through it: rising, never past the run's, all of them at the end.
  t.true(recordsThrough.every((records, index) => records > 0 && records <= 200_000 && records >= (recordsThrough[index - 1] ?? 0)));
  t.is(result.records, 200_000);
  // The first chunk is the magic and the small first row group: well under a full chunk.
  t.true(received[0]!.byteLength < CHUNK_BYTES / 2, `first chunk ${received[0]!.byteLength} bytes`);
  t.true(result.computeMs >= 0);

  const streamed = Buffer.concat([...received, result.body]);
  // The same bytes as the run written in one piece (the lean path of a small run, or a replay).
  t.true(streamed.equals(Buffer.concat([...writeParquetChunks(TASK, { chunkBytes: Number.POSITIVE_INFINITY })])));
  const file = await readParquet(streamed);
  t.is(file.records.length, 200_000);
  t.true(file.rowGroups.length > 3 && file.rowGroups.every((rows) => rows <= 65_536));
});

test('a small Parquet task comes back whole as the task result, without a port', async (t) => {
  const small = { ...TASK, numInteractions: 100 };
  t.true(estimateParquetBytes(small) <= CHUNK_BYTES);
  const result = await runTask(small);
  t.is(result.chunks, 0);
  t.true(Buffer.from(result.body).equals(Buffer.concat([...writeParquetChunks(small, { chunkBytes: CHUNK_BYTES })])));
  t.is((await readParquet(result.body)).records.length, 100);
});
