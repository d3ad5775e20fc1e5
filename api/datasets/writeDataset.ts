import { internalError } from '../../shared/errors/errors.ts';
import { EVENT_TIME_ENGINE_MAJOR } from '../../shared/engine/RunTimingSpec.ts';
import { engineInputOf } from '../../shared/runs/engineInputOf.ts';
import { ScenarioTracker } from '../../shared/engine/ScenarioTracker.ts';
import type { DatasetArchive } from './DatasetArchive.ts';
import { type DatasetLayout, numericFields } from './datasetLayouts.ts';
import { recordTimestamp } from './recordTimestamp.ts';
import type { DatasetRecord, RecordRun } from './streamRunRecords.ts';

/** One file of the archive, as the manifest lists it. */
interface DatasetFile {
  readonly path: string;
  readonly sequence: number;
  rows: number;
  /** Event windows in the file (0 in a train file). */
  anomalies: number;
  anomalous_rows: number;
}

/** A run of records covered by one event: NAB's window, TimeEval's anomaly. */
interface EventWindow {
  readonly type: string;
  readonly start: string | number;
  end: string | number;
}

export interface DatasetSource {
  /** Streams a run's records to `onRecord`; the scenario is absent for the matched clean run. */
  readonly records: (run: RecordRun, onRecord: (record: DatasetRecord) => void) => Promise<void>;
}

export interface DatasetOptions {
  readonly layout: DatasetLayout;
  /** NAB's value column: a numeric field of the preset; the first when absent. */
  readonly field?: string | undefined;
}

/**
 * Writes a scenario run as a detection benchmark into `archive`, one sequence per file, as the records
 * stream in: TimeEval's test files (every numeric field a value column, the labels) then its train files
 * (the same sequences in the run without the scenario: the matched counterfactual) and its registry; or
 * NAB's data files and label files. The manifest, last, lists the inputs, what was placed, every file
 * and the column map. Only one sequence's file is open at a time and nothing per record is kept.
 */
export const writeDataset = async (archive: DatasetArchive, source: DatasetSource, run: RecordRun, options: DatasetOptions): Promise<void> => {
  const fields = numericFields(run.serviceVersion, run.preset, run.model);
  const nab = options.layout === 'nab';
  const valueFields = nab ? [options.field ?? fields[0]!] : fields;
  const columns: Record<string, string> = nab ? { value: valueFields[0]! } : Object.fromEntries(fields.map((field, i) => [`value-${i}`, field]));
  if (run.model !== undefined && run.compiled === undefined) throw internalError();
  const input = engineInputOf(run, run.compiled);
  const tracker = new ScenarioTracker(input);
  const files: DatasetFile[] = [];
  const windows = new Map<number, EventWindow[]>();
  const header = nab ? 'timestamp,value\n' : `timestamp,${fields.map((_, i) => `value-${i}`).join(',')},is_anomaly,anomaly_type\n`;

  let file: DatasetFile | undefined;
  let lastEvent = -1;
  const openFile = (path: string, sequence: number): DatasetFile => {
    if (file !== undefined) archive.close();
    archive.open(path);
    archive.write(header);
    const opened: DatasetFile = { path, sequence, rows: 0, anomalies: 0, anomalous_rows: 0 };
    files.push(opened);
    return opened;
  };

  await source.records(run, (record) => {
    const sequence = record.sequence_id as number;
    const event = tracker.record(sequence);
    if (file?.sequence !== sequence) {
      file = openFile(nab ? `data/${sequence}.csv` : `test/${sequence}.csv`, sequence);
      windows.set(sequence, []);
      lastEvent = -1;
    }
    const timestamp = recordTimestamp(record, tracker.step);
    const label = record.scenario_event ?? null;
    if (event >= 0) {
      const own = windows.get(sequence)!;
      if (event !== lastEvent) {
        own.push({ type: String(label), start: timestamp, end: timestamp });
        file.anomalies++;
      } else {
        own.at(-1)!.end = timestamp;
      }
    }
    lastEvent = event;
    file.rows++;
    if (label !== null) file.anomalous_rows++;
    const values = valueFields.map((field) => String(record[field]));
    archive.write(nab ? `${timestamp},${values[0]}\n` : `${timestamp},${values.join(',')},${label === null ? 0 : 1},${label ?? ''}\n`);
  });
  if (file !== undefined) archive.close();
  const testFiles = files.slice();
  const outcome = tracker.outcome();

  if (nab) {
    const labels: Record<string, (string | number)[]> = {};
    const nabWindows: Record<string, (string | number)[][]> = {};
    for (const each of testFiles) {
      const key = `${each.sequence}.csv`;
      const own = windows.get(each.sequence) ?? [];
      labels[key] = own.map((window) => window.start);
      nabWindows[key] = own.map((window) => [window.start, window.end]);
    }
    archive.add('labels/combined_labels.json', `${JSON.stringify(labels, null, 2)}\n`);
    archive.add('labels/combined_windows.json', `${JSON.stringify(nabWindows, null, 2)}\n`);
  } else {
    // The matched counterfactual: the same inputs without the scenario, for the sequences the test has.
    const tested = new Set(testFiles.map((each) => each.sequence));
    const steps = new Map<number, number>();
    file = undefined;
    await source.records({ ...run, scenario: undefined }, (record) => {
      const sequence = record.sequence_id as number;
      if (!tested.has(sequence)) return;
      if (file?.sequence !== sequence) file = openFile(`train/${sequence}.csv`, sequence);
      const step = (steps.get(sequence) ?? 0) + 1;
      steps.set(sequence, step);
      file.rows++;
      archive.write(`${recordTimestamp(record, step)},${fields.map((field) => String(record[field])).join(',')},0,\n`);
    });
    if (file !== undefined) archive.close();
    const trained = new Set(files.slice(testFiles.length).map((each) => each.sequence));
    const registry = Object.fromEntries(
      testFiles.map((each) => [
        String(each.sequence),
        {
          test_path: each.path,
          ...(trained.has(each.sequence) ? { train_path: `train/${each.sequence}.csv` } : {}),
          type: 'synthetic',
          // No seasonal period in these series.
          period: 1,
        },
      ]),
    );
    archive.add('datasets.json', `${JSON.stringify(registry, null, 2)}\n`);
  }

  const manifest = {
    layout: options.layout,
    simulation_id: run.simulationId,
    preset: run.preset,
    profile: run.profile,
    seed: run.seed,
    num_interactions: run.numInteractions,
    engine_version: run.serviceVersion,
    scenario: run.scenario ?? null,
    placed: outcome.placed,
    unplaced: outcome.unplaced,
    // What the files' timestamps are: engine 4's event_time, or the step within the sequence before it.
    timestamp: Number(run.serviceVersion.split('.')[0]) >= EVENT_TIME_ENGINE_MAJOR ? 'event_time' : 'step',
    columns,
    files,
  };
  archive.add('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
  archive.end();
};
