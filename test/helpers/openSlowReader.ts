import { connect } from 'node:net';

export interface SlowReader {
  /** Bytes of the response read so far, head included. */
  readonly received: () => number;
  /** The response's head once it is in (status line and headers), else undefined. */
  readonly head: () => string | undefined;
  /**
   * Resolves once the server closed the connection, with everything read: `whole` when the chunked body
   * ended with its terminating chunk (a body the server cut has none).
   */
  readonly closed: Promise<{ readonly head: string; readonly whole: boolean; readonly bodyBytes: number }>;
  /** From now on reads whatever arrives at once (the rest of a body whose pace no longer matters). */
  readonly hurry: () => void;
  /** Hangs up. */
  readonly close: () => void;
}

/**
 * Sends one HTTP/1.1 POST on a raw connection and reads its answer at most `bytesPerSecond` (0: reads
 * nothing after the head), taking from the socket only what that pace allows, so the rest waits in the
 * kernel's buffers and the server sees a client that reads slowly, as a throttled download does.
 */
export const openSlowReader = (
  url: string,
  request: { readonly path: string; readonly headers: Readonly<Record<string, string>>; readonly body: string },
  bytesPerSecond: number,
): SlowReader => {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.pause();
  const headers = { ...request.headers, Host: `${hostname}:${port}`, Connection: 'close', 'Content-Length': String(Buffer.byteLength(request.body)) };
  socket.write(`POST ${request.path} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${request.body}`);
  const chunks: Buffer[] = [];
  let received = 0;
  let headEnd = -1;
  let headText: string | undefined;
  let hurried = false;
  const TICK_MS = 50;
  const take = (budget: number): void => {
    // A paused socket reads from the kernel only when asked to: up to its high-water mark, no further.
    socket.read(0);
    while (budget > 0 && socket.readableLength > 0) {
      const piece = socket.read(Math.min(budget, socket.readableLength)) as Buffer | null;
      if (piece === null) {
        return;
      }
      chunks.push(piece);
      received += piece.length;
      budget -= piece.length;
    }
  };
  const pace = setInterval(() => {
    if (headEnd === -1) {
      // The head at once, whatever the pace: a client waits for it before reading the body slowly.
      take(64 * 1024);
      const sofar = Buffer.concat(chunks);
      headEnd = sofar.indexOf('\r\n\r\n');
      headText = headEnd === -1 ? undefined : sofar.subarray(0, headEnd).toString('latin1');
      return;
    }
    take(hurried ? Number.MAX_SAFE_INTEGER : Math.round((bytesPerSecond * TICK_MS) / 1000));
  }, TICK_MS);
  socket.on('error', () => {});
  const closed = new Promise<{ head: string; whole: boolean; bodyBytes: number }>((resolve) => {
    socket.once('close', () => {
      clearInterval(pace);
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      resolve({ head: all.subarray(0, Math.max(end, 0)).toString('latin1'), whole: all.subarray(-7).toString('latin1') === '\r\n0\r\n\r\n', bodyBytes: end === -1 ? 0 : all.length - end - 4 });
    });
  });
  return {
    received: () => received,
    head: () => headText,
    closed,
    hurry: () => {
      hurried = true;
    },
    close: () => socket.destroy(),
  };
};
