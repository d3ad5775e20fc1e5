import type { Server } from 'node:http';
import { loadConfig } from '../shared/config.ts';
import { describeError } from '../shared/errors/describeError.ts';
import { buildApp } from './app.ts';
import { closeServices, createServices } from './createServices.ts';

// A backstop: if draining hangs (a stuck client, a dead dependency) the process still exits.
const SHUTDOWN_DEADLINE_MS = 45_000;

const config = loadConfig();
const services = await createServices(config);
const { logger } = services;
const app = buildApp(services);

// reusePort lets several API processes (API_PROCESSES) listen on one port; the kernel balances them.
const server: Server = app.listen({ port: config.port, reusePort: true }, () => {
  logger.info({ port: config.port }, 'api listening');
});
// Keep-alive sockets outliving the load balancer's would be cut mid-request; let them idle out first.
server.keepAliveTimeout = 65_000;

let shuttingDown = false;
const shutdown = async (signal: string): Promise<void> => {
  if (shuttingDown) {
    return;
  }
  shuttingDown = true;
  logger.info({ signal }, 'api draining');
  services.lifecycle.draining = true;
  setTimeout(() => {
    logger.error('api shutdown deadline passed; exiting');
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS).unref();
  // Stop accepting, let in-flight requests finish, and close idle keep-alive sockets so close() resolves.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 200);
  await closed;
  clearInterval(idleSweep);
  await closeServices(services);
  logger.info('api stopped');
  process.exit(0);
};

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    shutdown(signal).catch((error: unknown) => {
      logger.error({ error: describeError(error) }, 'api shutdown failed');
      process.exit(1);
    });
  });
}
