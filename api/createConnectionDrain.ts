import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';

/** How often a drain closes the keep-alive sockets that have gone idle since it began. */
const IDLE_SWEEP_MS = 200;

export interface ConnectionDrain {
  /**
   * From now on every response closes its connection (those whose headers have not gone out yet included),
   * so a client's next request opens a new one, which reaches a process still accepting.
   */
  closeAfterResponding(): void;
  /**
   * Stops accepting and resolves once every connection has closed: each in-flight exchange ends, a
   * keep-alive socket between requests is closed, and a socket accepted before the listener closed is
   * served the request it sends, within the headers and request timeouts like any other.
   */
  close(): Promise<void>;
}

/**
 * How an API process lets go of its connections (docs/operations.md#graceful-shutdown). Node's
 * `server.close()` also stops the checks behind `headersTimeout` and `requestTimeout`, so a client that
 * connected and never sent a request, or sends it slowly, held the drain until the backstop killed the
 * process; net's close stops accepting and leaves those checks running.
 */
export const createConnectionDrain = (server: Server): ConnectionDrain => {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_request, response: ServerResponse) => {
    if (draining) {
      response.shouldKeepAlive = false;
      return;
    }
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
  });

  return {
    closeAfterResponding() {
      draining = true;
      for (const response of inFlight) {
        if (!response.headersSent) {
          response.shouldKeepAlive = false;
        }
      }
    },
    async close() {
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      // Node's idle sockets are those between requests: one just accepted counts as a request begun.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      try {
        await closed;
      } finally {
        clearInterval(sweep);
      }
    },
  };
};
