import type { Job, Worker } from 'bullmq';

/**
 * The next `active` or `failed` event of a BullMQ worker, as a promise. Unlike events.once, a worker's
 * 'error' event (a lock it could not renew, a connection blip) does not reject it.
 */
export const nextJobEvent = <E extends 'active' | 'failed'>(worker: Worker, event: E): Promise<E extends 'failed' ? [Job, Error] : [Job]> =>
  new Promise((resolve) => {
    worker.once(event, ((...args: unknown[]) => resolve(args as never)) as never);
  });
