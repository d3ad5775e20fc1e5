import net from 'node:net';
import { resetSocket } from './resetSocket.ts';

// PostgreSQL's ReadyForQuery message: the server has finished (and, outside a transaction block or after
// COMMIT, committed) what the client sent.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

export interface CutAnswers {
  /** Requests (HTTP/1.1) whose path matches have their answer cut. */
  readonly pathPattern: RegExp;
  /** The bytes of the answer that get through before the reset. */
  readonly afterBytes: number;
  /** Only the first this many such answers; later ones pass whole. */
  readonly maxCuts: number;
}

export interface TcpProxyOptions {
  readonly targetHost?: string;
  /** A network failure mid-download, made to order for resume tests. */
  readonly cutAnswers?: CutAnswers;
}

export interface TcpProxy {
  readonly port: number;
  /** `http://127.0.0.1:<port>`, for a proxy in front of an HTTP service. */
  readonly url: string;
  /** Sends new connections to another port from now on (open ones keep theirs). */
  readonly forwardTo: (targetPort: number) => void;
  /** Simulates an outage: open connections are reset and new ones refused. */
  readonly cut: () => Promise<void>;
  /** Simulates a broken link: open connections are reset, new ones still made. */
  readonly resetOpen: () => void;
  /** How many answers `cutAnswers` has cut so far. */
  readonly cuts: () => number;
  /**
   * Arms an outage for the instant a client sends bytes containing `marker`: those bytes never reach the
   * server, every open connection is reset and new ones are refused, so the client's command is in flight
   * when its link dies. Resolves when that has happened.
   */
  readonly cutOnRequest: (marker: string) => Promise<void>;
  /**
   * Arms the proxy (PostgreSQL): the next time a client sends bytes containing `marker`, they reach the
   * server, but the server's whole answer is swallowed and the link cut once the server is done
   * (ReadyForQuery): the statement ran and committed, and its acknowledgement is lost. Resolves when that
   * has happened.
   */
  readonly loseReplyTo: (marker: string) => Promise<void>;
  /**
   * Arms the proxy (PostgreSQL): once one connection has sent bytes containing each of `markers` in turn
   * (the statement, then its COMMIT, say), the server's answer to the last of them is held back from the
   * client until `meanwhile` resolves, then delivered whole. The server has committed by then; its client
   * does not know it yet, so `meanwhile` runs exactly between a change's commit and whatever its process
   * does next. Resolves once the answer was delivered.
   */
  readonly holdCommit: (markers: readonly string[], meanwhile: () => Promise<void>) => Promise<void>;
  /**
   * Arms the proxy: the next time a client sends bytes containing `marker`, those bytes (and whatever that
   * connection sends after them) are held back from the server until `meanwhile` resolves, then forwarded:
   * the client's statement is in flight, neither failed nor run, for exactly as long as `meanwhile` takes.
   * Resolves once the held bytes were forwarded.
   */
  readonly holdRequest: (marker: string, meanwhile: () => Promise<void>) => Promise<void>;
  readonly close: () => Promise<void>;
}

interface Armed {
  cutOnRequest?: { readonly marker: Buffer; readonly done: () => void };
  loseReply?: { readonly marker: Buffer; readonly done: () => void };
  holdCommit?: { readonly markers: readonly Buffer[]; readonly meanwhile: () => Promise<void>; readonly delivered: () => void; readonly failed: (error: unknown) => void };
  holdRequest?: { readonly marker: Buffer; readonly meanwhile: () => Promise<void>; readonly forwarded: () => void; readonly failed: (error: unknown) => void };
}

/**
 * A loopback TCP proxy to a real service (Redis, PostgreSQL, the app), so a test can break the link to it
 * for one process only, at the very byte it chooses. Its port exists before the target does if need be:
 * start it with target 0 and name the target with `forwardTo`.
 */
export const startTcpProxy = async (targetPort: number, options: TcpProxyOptions = {}): Promise<TcpProxy> => {
  let target = targetPort;
  let cuts = 0;
  const armed: Armed = {};
  const sockets = new Set<net.Socket>();
  const resetOpen = (): void => {
    for (const socket of sockets) {
      resetSocket(socket);
    }
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target, options.targetHost ?? '127.0.0.1');
    sockets.add(client).add(upstream);
    const cutLink = (): void => {
      resetSocket(client);
      upstream.destroy();
    };
    // This connection's progress: an answer being cut, lost or held, and the commit markers seen so far.
    let cutting: { forwarded: number } | undefined;
    let losing: { swallowed: Buffer; readonly done: () => void } | undefined;
    let holding: { bytes: Buffer; release?: Promise<void> } | undefined;
    let heldRequest: { bytes: Buffer } | undefined;
    let matched = 0;

    client.on('data', (chunk: Buffer) => {
      if (heldRequest !== undefined) {
        heldRequest.bytes = Buffer.concat([heldRequest.bytes, chunk]);
        return;
      }
      if (armed.holdRequest !== undefined && chunk.includes(armed.holdRequest.marker)) {
        const { meanwhile, forwarded, failed } = armed.holdRequest;
        armed.holdRequest = undefined;
        const held = { bytes: chunk };
        heldRequest = held;
        const release = (): void => {
          heldRequest = undefined;
          upstream.write(held.bytes, () => forwarded());
        };
        meanwhile().then(release, (error: unknown) => {
          release();
          failed(error);
        });
        return;
      }
      if (armed.cutOnRequest !== undefined && chunk.includes(armed.cutOnRequest.marker)) {
        const { done } = armed.cutOnRequest;
        armed.cutOnRequest = undefined;
        void close().then(done);
        return;
      }
      if (armed.loseReply !== undefined && chunk.includes(armed.loseReply.marker)) {
        losing = { swallowed: Buffer.alloc(0), done: armed.loseReply.done };
        armed.loseReply = undefined;
      }
      const wanted = armed.holdCommit?.markers[matched];
      if (armed.holdCommit !== undefined && wanted !== undefined && chunk.includes(wanted)) {
        matched += 1;
        if (matched === armed.holdCommit.markers.length) {
          holding = { bytes: Buffer.alloc(0) };
        }
      }
      if (options.cutAnswers !== undefined && cutting === undefined && cuts < options.cutAnswers.maxCuts) {
        const requestLine = chunk.toString('latin1').split('\r\n', 1)[0] ?? '';
        const path = requestLine.split(' ')[1];
        if (path !== undefined && /^[A-Z]+ \S+ HTTP\/1\.1$/.test(requestLine) && options.cutAnswers.pathPattern.test(path)) {
          cutting = { forwarded: 0 };
        }
      }
      if (!upstream.write(chunk)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    });

    upstream.on('data', (chunk: Buffer) => {
      if (cutting !== undefined && options.cutAnswers !== undefined) {
        const { afterBytes } = options.cutAnswers;
        if (cutting.forwarded + chunk.length > afterBytes) {
          cuts += 1;
          client.write(chunk.subarray(0, afterBytes - cutting.forwarded), cutLink);
          cutting = undefined;
          return;
        }
        cutting.forwarded += chunk.length;
      }
      if (losing !== undefined) {
        losing.swallowed = Buffer.concat([losing.swallowed, chunk]);
        if (losing.swallowed.includes(READY_FOR_QUERY)) {
          cutLink();
          losing.done();
        }
        return;
      }
      if (holding !== undefined) {
        holdAnswer(holding, chunk);
        return;
      }
      if (!client.write(chunk)) {
        upstream.pause();
        client.once('drain', () => upstream.resume());
      }
    });

    const holdAnswer = (held: { bytes: Buffer; release?: Promise<void> }, chunk: Buffer): void => {
      held.bytes = Buffer.concat([held.bytes, chunk]);
      if (held.release !== undefined || !held.bytes.includes(READY_FOR_QUERY) || armed.holdCommit === undefined) {
        return;
      }
      const { meanwhile, delivered, failed } = armed.holdCommit;
      armed.holdCommit = undefined;
      held.release = meanwhile().then(
        () => {
          holding = undefined;
          client.write(held.bytes, () => delivered());
        },
        (error: unknown) => {
          holding = undefined;
          client.write(held.bytes);
          failed(error);
        },
      );
    };

    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  let closed = false;
  const close = async (): Promise<void> => {
    resetOpen();
    if (!closed) {
      closed = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  };
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    forwardTo: (next) => {
      target = next;
    },
    cut: close,
    resetOpen,
    cuts: () => cuts,
    cutOnRequest: (marker) =>
      new Promise<void>((done) => {
        armed.cutOnRequest = { marker: Buffer.from(marker, 'utf8'), done };
      }),
    loseReplyTo: (marker) =>
      new Promise<void>((done) => {
        armed.loseReply = { marker: Buffer.from(marker, 'utf8'), done };
      }),
    holdCommit: (markers, meanwhile) =>
      new Promise<void>((delivered, failed) => {
        armed.holdCommit = { markers: markers.map((marker) => Buffer.from(marker, 'utf8')), meanwhile, delivered, failed };
      }),
    holdRequest: (marker, meanwhile) =>
      new Promise<void>((forwarded, failed) => {
        armed.holdRequest = { marker: Buffer.from(marker, 'utf8'), meanwhile, forwarded, failed };
      }),
    close,
  };
};
