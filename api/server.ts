import type { Server } from 'node:http';
import { loadConfig } from '../shared/config.ts';
import { describeError } from '../shared/errors/describeError.ts';
import { describePortProblem, PORT_IN_USE_EXIT_CODE } from '../shared/process/probePort.ts';
import { watchParent } from '../shared/process/watchParent.ts';
import { buildApp } from './app.ts';
import { createConnectionDrain } from './createConnectionDrain.ts';
import { createHttpServer } from './createHttpServer.ts';
import { closeServices, createServices } from './createServices.ts';
import { startStaleSweeper } from './runs/sweepStaleSimulations.ts';

const config = loadConfig();
const services = await createServices(config);
const { logger } = services;
const app = buildApp(services);
const server: Server = createHttpServer(app, config, logger);
// Hands back the quota of runs whose API process died mid-wait (any process may settle any such row).
startStaleSweeper(services);

// `--shared-port` (given by `npm start` to its API processes when API_PROCESSES > 1) turns SO_REUSEPORT on,
// so they listen on one port and the kernel balances them. Without it the port is this process's alone: a
// second service started on a taken port fails here instead of silently taking a share of the traffic.
const sharedPort = process.argv.includes('--shared-port');
server.once('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE' || error.code === 'EACCES') {
    process.stderr.write(`${describePortProblem(config.port, error.code)}\n`);
    process.exit(PORT_IN_USE_EXIT_CODE);
  }
  throw error;
});
server.listen({ port: config.port, reusePort: sharedPort }, () => {
  logger.info({ port: config.port }, 'api listening');
});
// Watched from the start: a drain begins by telling the responses then in flight to close their connections.
const connections = createConnectionDrain(server);

let shuttingDown = false;
const shutdown = async (signal: string): Promise<void> => {
  if (shuttingDown) {
    return;
  }
  shuttingDown = true;
  // The order of docs/development.md#code-conventions: not ready, stop accepting, finish in-flight requests (their simulations
  // included: the queue client and its reply channel stay open until then), then queue, Postgres, Redis.
  services.lifecycle.draining = true;
  connections.closeAfterResponding();
  logger.info({ signal, delay_ms: config.shutdownDelayMs }, 'api draining');
  // A backstop: if draining hangs (a stuck client, a dead dependency) the process still exits. In-flight
  // simulations end by their deadline, so the delay, a deadline and a margin bound a clean drain.
  setTimeout(() => {
    logger.error('api shutdown deadline passed; exiting');
    process.exit(1);
  }, config.shutdownDelayMs + config.simulationTimeoutMs + 10_000).unref();
  // Keep serving, /ready at 503, while load balancers notice and move traffic elsewhere.
  await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
  // Stop accepting, let in-flight requests finish, and close idle keep-alive sockets so the close resolves.
  await connections.close();
  logger.info('api requests drained');
  await closeServices(services);
  logger.info('api stopped');
  process.exit(0);
};

const stop = (reason: string): void => {
  shutdown(reason).catch((error: unknown) => {
    logger.error({ error: describeError(error) }, 'api shutdown failed');
    process.exit(1);
  });
};
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => stop(signal));
}
// Started by `npm start`'s supervisor: stop with it, even when it was killed without a chance to say so.
if (process.channel !== undefined) {
  watchParent((reason) => stop(`supervisor gone (${reason})`));
}
