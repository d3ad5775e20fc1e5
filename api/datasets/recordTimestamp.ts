import type { DatasetRecord } from './streamRunRecords.ts';

/**
 * A record's timestamp in a dataset: the engine-4 `event_time` where records carry one; before engine 4,
 * the record's step within its sequence (1 on its first record), so every file's timestamps count 1, 2, 3...
 */
export const recordTimestamp = (record: DatasetRecord, step: number): string | number => {
  const eventTime = record.event_time;
  return typeof eventTime === 'string' ? eventTime : step;
};
