import http2 from 'node:http2';
import type { Logger } from '../shared/logger.ts';
import { describeError } from '../shared/errors/describeError.ts';

export interface DataPlaneClient {
  /** Opens a run's stream to the API process at `address` (an `http://host:port` origin). */
  readonly open: (address: string, headers: http2.OutgoingHttpHeaders) => http2.ClientHttp2Stream;
  readonly close: () => void;
}

/**
 * A worker's side of the data plane (shared/jobs/dataPlaneProtocol.ts): one HTTP/2 session per API
 * process, made on the first run for it and kept, so a run costs a stream, not a connection. A session
 * that fails or closes is forgotten, and the next run for that address makes a new one.
 */
export const createDataPlaneClient = (logger: Logger): DataPlaneClient => {
  const sessions = new Map<string, http2.ClientHttp2Session>();
  const sessionFor = (address: string): http2.ClientHttp2Session => {
    const known = sessions.get(address);
    if (known !== undefined && !known.closed && !known.destroyed) {
      return known;
    }
    const session = http2.connect(address);
    // Its streams report what failed, run by run; the session's own error needs no more than a line.
    session.on('error', (error) => logger.debug({ address, error: describeError(error) }, 'data plane session error'));
    session.on('close', () => {
      if (sessions.get(address) === session) {
        sessions.delete(address);
      }
    });
    // An idle link to an API process must not keep a stopping worker alive.
    session.unref();
    sessions.set(address, session);
    return session;
  };
  return {
    open: (address, headers) => sessionFor(address).request(headers, { endStream: false, waitForTrailers: true }),
    // Called once the worker's jobs are over: no stream is left to finish.
    close: () => {
      for (const session of sessions.values()) {
        session.destroy();
      }
      sessions.clear();
    },
  };
};
