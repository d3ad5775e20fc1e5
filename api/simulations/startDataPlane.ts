import http2 from 'node:http2';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { describeError } from '../../shared/errors/describeError.ts';
import { dataPlaneProtocol } from '../../shared/jobs/dataPlaneProtocol.ts';
import type { Logger } from '../../shared/logger.ts';

export interface DataPlaneOptions {
  readonly host: string;
  readonly port: number;
  readonly advertiseHost: string | undefined;
  readonly advertisePort: number | undefined;
  readonly logger: Logger;
  /**
   * A worker opened a run's stream. `runId` is the path's; the stream is the handler's to answer (it is
   * still paused: nothing is read before the handler says so).
   */
  readonly onRun: (runId: string, lockToken: string, stream: http2.ServerHttp2Stream) => void;
}

export interface DataPlane {
  /** The origin workers reach this process at (`http://host:port`), once it listens. */
  readonly address: Promise<string>;
  readonly close: () => Promise<void>;
}

/**
 * The API process's data plane port (shared/jobs/dataPlaneProtocol.ts): cleartext HTTP/2 that workers
 * open sessions to. Each listens on a port of its own (`exclusive`, so processes forked by `npm start`
 * never share one), and its address travels in every job the process enqueues.
 */
export const startDataPlane = (options: DataPlaneOptions): DataPlane => {
  const { logger } = options;
  const server = http2.createServer({ settings: { initialWindowSize: dataPlaneProtocol.streamWindowBytes } });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', (error) => logger.debug({ error: describeError(error) }, 'data plane session error'));
    // The session's window spans every run a worker streams at once; the default (64 KiB) would let one
    // slow run stall the others.
    session.setLocalWindowSize(dataPlaneProtocol.sessionWindowBytes);
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    const match = dataPlaneProtocol.pathPattern.exec(String(headers[':path'] ?? ''));
    const token = headers[dataPlaneProtocol.headers.lockToken];
    if (headers[':method'] !== 'POST' || match === null || typeof token !== 'string' || token === '') {
      stream.respond({ ':status': 400 }, { endStream: true });
      return;
    }
    options.onRun(match[1]!, token, stream);
  });
  server.on('error', (error) => logger.error({ error: describeError(error) }, 'data plane server error'));

  const address = new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port, exclusive: true }, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = options.advertiseHost ?? (options.host === '0.0.0.0' || options.host === '::' ? os.hostname() : options.host);
      const origin = `http://${host.includes(':') ? `[${host}]` : host}:${options.advertisePort ?? port}`;
      logger.debug({ address: origin }, 'data plane listening');
      resolve(origin);
    });
  });
  address.catch(() => {});

  return {
    address,
    close: async () => {
      for (const session of sessions) {
        session.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
