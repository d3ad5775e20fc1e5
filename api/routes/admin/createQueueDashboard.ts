import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board over the simulation queue. Its Koa adapter builds a Koa app of its own (its own
 * @koa/router, body parser and static files) and mounts it under the base path; the UI's pages, assets and
 * JSON API all live below that path, so one guard in front covers them all.
 */
export const createQueueDashboard = (queue: Queue): Middleware => {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    // The adapter is typed against bullmq 5; it only calls the Queue methods bullmq 6 still has.
    queues: [new BullMQAdapter(queue as never)],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Simulations' } },
  });
  return serverAdapter.registerPlugin() as Middleware;
};
