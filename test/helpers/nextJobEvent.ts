import type { Job, Worker } from 'bullmq';

type JobEventArgs<E> = E extends 'failed' ? [Job, Error] : E extends 'completed' ? [Job, unknown] : [Job];

/**
 * The next `active`, `completed` or `failed` event of a BullMQ worker, as a promise. Unlike events.once, a
 * worker's 'error' event (a lock it could not renew, a connection blip) does not reject it.
 */
export const nextJobEvent = <E extends 'active' | 'completed' | 'failed'>(worker: Worker, event: E): Promise<JobEventArgs<E>> =>
  new Promise((resolve) => {
    worker.once(event, ((...args: unknown[]) => resolve(args as never)) as never);
  });
