/**
 * Where a finished run's bytes wait for the API process that asked: long enough for that process to fetch
 * them (it does at once, with GETDEL), short enough that results nobody fetches cannot pile up in Redis.
 */
export const RESULT_TTL_MS = 60_000;

export const simulationResultKey = (prefix: string, simulationId: string): string => `${prefix}:simulation-result:${simulationId}`;

/** One channel per API process: a worker's notice reaches only the process holding the waiter. */
export const replyChannel = (prefix: string, processId: string): string => `${prefix}:simulation-replies:${processId}`;
