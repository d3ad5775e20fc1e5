import { z } from 'zod';

/**
 * Worker processes have no HTTP server: each publishes its pool gauges under its own field of one Redis
 * hash, and every API process reports them on /metrics. An entry older than this (a worker that died
 * without removing it) is dropped, so a gone worker stops being reported within seconds. Milliseconds.
 */
export const WORKER_POOL_STALE_MS = 15_000;
/** How often a worker rewrites its entry. Milliseconds. */
export const WORKER_POOL_PUBLISH_INTERVAL_MS = 5_000;

export const workerPoolsKey = (prefix: string): string => `${prefix}:metrics:worker-pools`;

export const workerPoolSnapshotSchema = z.object({
  threads: z.int().min(0),
  busy: z.int().min(0),
  queued: z.int().min(0),
  /** Epoch milliseconds of the snapshot, the worker's clock. */
  at: z.int(),
});

export type WorkerPoolSnapshot = z.infer<typeof workerPoolSnapshotSchema>;
