import { recordTimestamp } from './recordTimestamp.ts';
import type { DatasetRecord } from './streamRunRecords.ts';

/** One file of the archive, as the manifest lists it. */
export interface DatasetFile {
  readonly path: string;
  readonly sequence: number;
  rows: number;
  /** Event windows in the file (0 in a train file). */
  anomalies: number;
  anomalous_rows: number;
}

/** A run of records covered by one event: NAB's window, TimeEval's anomaly. */
export interface EventWindow {
  readonly type: string;
  readonly start: string | number;
  end: string | number;
}

/** A file's CSV row for a record, its timestamp and its label (null outside every event). */
export type RowFormat = (record: DatasetRecord, timestamp: string | number, label: string | null) => string;

/**
 * One sequence's file, fed that sequence's records in the run's order: it prints each record's row and
 * counts the file's rows, labelled rows and event windows. The labels are the engine's own, each record's
 * `scenario_event`; a window is a maximal run of consecutive records of the sequence with the same label
 * (docs/datasets.md#2-the-archive), so no schedule is replayed here.
 */
export class SequenceFile {
  readonly entry: DatasetFile;
  readonly windows: EventWindow[] = [];
  private readonly format: RowFormat;
  private last: string | null = null;

  constructor(path: string, sequence: number, format: RowFormat) {
    this.entry = { path, sequence, rows: 0, anomalies: 0, anomalous_rows: 0 };
    this.format = format;
  }

  /** Counts the sequence's next record and answers its row. */
  row(record: DatasetRecord): string {
    const entry = this.entry;
    entry.rows++;
    const timestamp = recordTimestamp(record, entry.rows);
    const label = record.scenario_event === undefined || record.scenario_event === null ? null : String(record.scenario_event);
    if (label !== null) {
      entry.anomalous_rows++;
      if (label === this.last) {
        this.windows.at(-1)!.end = timestamp;
      } else {
        this.windows.push({ type: label, start: timestamp, end: timestamp });
        entry.anomalies++;
      }
    }
    this.last = label;
    return this.format(record, timestamp, label);
  }
}
