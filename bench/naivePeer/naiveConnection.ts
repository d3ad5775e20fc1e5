import type { ConnectionOptions } from 'bullmq';

/** The queue the naive peer's API and worker agree on. */
export const NAIVE_QUEUE = 'naive-simulations';

/** Host and port from REDIS_URL, as BullMQ's documentation passes a connection. */
export const naiveConnection = (): ConnectionOptions => {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  return { host: url.hostname, port: Number(url.port || 6379) };
};
