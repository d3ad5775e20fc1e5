import { once } from 'node:events';
import { type MessagePort, Worker } from 'node:worker_threads';
import test from 'ava';
import { dataPlaneProtocol } from '../../shared/jobs/dataPlaneProtocol.ts';
import { createLogger } from '../../shared/logger.ts';
import { createDataPlaneClient } from '../../worker/createDataPlaneClient.ts';
import type { SimulationPool } from '../../worker/pool.ts';
import { sendRun } from '../../worker/sendRun.ts';
import type { SimulationTask, SimulationTaskResult } from '../../worker/simulationTask.ts';

const CHUNK = 256 * 1024;
const CHUNKS = 400;

/**
 * An API process's data plane that takes any run from offset 0 and counts its bytes without keeping them,
 * in a thread of its own, so the buffers it receives are not counted with this thread's.
 */
const startCountingDataPlane = async () => {
  const thread = new Worker(
    `const http2 = require('node:http2');
    const { parentPort, workerData } = require('node:worker_threads');
    const server = http2.createServer({ settings: { initialWindowSize: workerData.streamWindow } });
    server.on('session', (session) => session.setLocalWindowSize(workerData.sessionWindow));
    server.on('stream', (stream) => {
      let received = 0;
      stream.respond({ ':status': 200, [workerData.offsetHeader]: '0' });
      stream.on('data', (piece) => { received += piece.length; });
      stream.on('end', () => { stream.end(); parentPort.postMessage({ received }); });
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    parentPort.on('message', () => process.exit(0));`,
    {
      eval: true,
      workerData: { streamWindow: dataPlaneProtocol.streamWindowBytes, sessionWindow: dataPlaneProtocol.sessionWindowBytes, offsetHeader: dataPlaneProtocol.headers.offset },
    },
  );
  const [{ port }] = (await once(thread, 'message')) as [{ port: number }];
  return {
    address: `http://127.0.0.1:${port}`,
    received: async () => ((await once(thread, 'message')) as [{ received: number }])[0].received,
    close: async () => {
      thread.postMessage('stop');
      await once(thread, 'exit');
    },
  };
};

// The worker's main thread frees each chunk once the data plane has written it (docs/architecture.md#a-workers-memory):
// left to the garbage collector, chunks pile up by tens of MB before a collection.
test('a streamed run holds no more than a few chunks in the worker at once: each is freed once the data plane has written it', async (t) => {
  const plane = await startCountingDataPlane();
  const dataPlane = createDataPlaneClient(createLogger('silent', 'test'));
  let mostHeld = 0;
  // A pool thread stand-in, in this thread: it posts its chunks on the run's port as runSimulationTask does,
  // each in a buffer of its own, transferred, and waits for a credit after two unanswered ones.
  const pool = {
    run: async (task: SimulationTask) => {
      const port = task.port as MessagePort;
      let credits = 2;
      let wake: (() => void) | undefined;
      port.on('message', () => {
        credits++;
        wake?.();
      });
      for (let n = 1; n <= CHUNKS; n++) {
        while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
        credits--;
        const bytes = new Uint8Array(CHUNK).fill(n & 0xff);
        port.postMessage({ bytes, records: n }, [bytes.buffer]);
        mostHeld = Math.max(mostHeld, process.memoryUsage().arrayBuffers);
      }
      port.close();
      return { body: new Uint8Array(0), computeMs: 1, chunks: CHUNKS, records: CHUNKS } satisfies SimulationTaskResult;
    },
  } as unknown as SimulationPool;
  const before = process.memoryUsage().arrayBuffers;
  const received = plane.received();
  const outcome = await sendRun({
    dataPlane,
    address: plane.address,
    runId: '00000000-0000-4000-8000-000000000001',
    token: 'token',
    attempt: 1,
    pool,
    task: { simulationId: '00000000-0000-4000-8000-000000000001' } as SimulationTask,
    streamed: true,
    startedAt: Date.now(),
    deadline: Date.now() + 60_000,
  });
  t.is(outcome, 'delivered');
  t.is(await received, CHUNKS * (CHUNK + dataPlaneProtocol.frameHeaderBytes));
  dataPlane.close();
  await plane.close();
  // 100 MB went through; a handful of chunks at most were held at any time.
  t.log(`${Math.round((mostHeld - before) / 2 ** 20)} MB held at most`);
  t.true(mostHeld - before < 16 * 2 ** 20, `${Math.round((mostHeld - before) / 2 ** 20)} MB held`);
});
