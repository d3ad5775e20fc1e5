import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { dataPlaneProtocol } from '../../shared/jobs/dataPlaneProtocol.ts';

interface ReceivedRun {
  readonly runId: string;
  readonly lockToken: string;
  /** The frames' payloads joined: the run's body. */
  readonly body: Buffer;
  readonly trailers: http2.IncomingHttpHeaders;
}

export interface TestDataPlane {
  /** What a job's `replyTo` holds to send its run here. */
  readonly address: string;
  /** The next run sent here whole (its trailers in). */
  readonly nextRun: () => Promise<ReceivedRun>;
  readonly close: () => Promise<void>;
}

/**
 * A data plane of the test's own (shared/jobs/dataPlaneProtocol.ts), for jobs a test enqueues by hand: it
 * takes any run from any worker, from offset 0, and keeps what came.
 */
export const startTestDataPlane = async (): Promise<TestDataPlane> => {
  const server = http2.createServer();
  // Closed with the test, not with the worker that holds a link here: its sessions are dropped at close,
  // or the server would wait for a worker that a later hook stops.
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  const received: ReceivedRun[] = [];
  const waiting: ((run: ReceivedRun) => void)[] = [];
  server.on('stream', (stream, headers) => {
    const runId = /^\/runs\/(.+)$/.exec(String(headers[':path']))?.[1] ?? '';
    const lockToken = String(headers[dataPlaneProtocol.headers.lockToken] ?? '');
    stream.respond({ ':status': 200, [dataPlaneProtocol.headers.offset]: '0' });
    const pieces: Buffer[] = [];
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on('trailers', (sent: http2.IncomingHttpHeaders) => {
      trailers = sent;
    });
    stream.on('data', (piece: Buffer) => pieces.push(piece));
    stream.on('end', () => {
      const framed = Buffer.concat(pieces);
      const payloads: Buffer[] = [];
      for (let at = 0; at < framed.length; ) {
        const length = framed.readUInt32BE(at);
        payloads.push(framed.subarray(at + dataPlaneProtocol.frameHeaderBytes, at + dataPlaneProtocol.frameHeaderBytes + length));
        at += dataPlaneProtocol.frameHeaderBytes + length;
      }
      stream.end();
      const run = { runId, lockToken, body: Buffer.concat(payloads), trailers };
      const next = waiting.shift();
      if (next === undefined) {
        received.push(run);
      } else {
        next(run);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    nextRun: () => {
      const run = received.shift();
      return run === undefined ? new Promise<ReceivedRun>((resolve) => waiting.push(resolve)) : Promise.resolve(run);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      }),
  };
};
