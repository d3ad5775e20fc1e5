/**
 * How long a worker's lock on a job lasts without renewal, and how often workers look for jobs whose lock
 * lapsed. A worker killed mid-job loses its job to another within about lockDuration + 2 x stalledInterval
 * (under 10 s), well inside the 30 s deadline. Renewal runs on the worker's main thread every
 * lockDuration / 2; the engine runs only in threads, so nothing starves it.
 */
export const WORKER_LOCK_DURATION_MS = 5000;
export const WORKER_STALLED_INTERVAL_MS = 2000;
/** A job may be recovered from one dead worker; a second stall fails it (and the API answers 504). */
export const WORKER_MAX_STALLED_COUNT = 1;

/**
 * BullMQ's events stream is written on every job transition; nothing here reads it (results travel by
 * reply channel), so keep it short: Redis memory stays flat however many simulations run.
 */
export const EVENTS_STREAM_MAX_LEN = 1000;

/** Failed jobs stay a day for the dashboard, at most this many; completed ones are removed at once. */
export const KEEP_FAILED_JOBS = { count: 1000, age: 24 * 60 * 60 } as const;
