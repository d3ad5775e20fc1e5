import { internalError } from '../../shared/errors/errors.ts';
import { EVENT_TIME_ENGINE_MAJOR } from '../../shared/engine/RunTimingSpec.ts';
import type { DatasetArchive } from './DatasetArchive.ts';
import { type DatasetLayout, numericFields } from './datasetLayouts.ts';
import { type RowFormat, SequenceFile } from './SequenceFile.ts';
import type { DatasetRecord, RecordRun, RunOutcome } from './streamRunRecords.ts';

/**
 * The rows of a time-ordered run one pass keeps in memory (as their CSV rows, some hundred bytes each, so
 * tens of megabytes) before writing their files: each further group of sequences costs one more run of
 * the inputs on the workers (docs/datasets.md#time-ordered-runs). A sequence longer than this is a group
 * of its own.
 */
const ROW_BUDGET = 100_000;

export interface DatasetSource {
  /**
   * Streams a run's records to `onRecord` and resolves with what the engine made of its scenario; the
   * scenario is absent for the matched clean run.
   */
  readonly records: (run: RecordRun, onRecord: (record: DatasetRecord) => void) => Promise<RunOutcome>;
}

export interface DatasetOptions {
  readonly layout: DatasetLayout;
  /** NAB's value column: a numeric field of the preset; the first when absent. */
  readonly field?: string | undefined;
  /** A time-ordered run's rows per pass; ROW_BUDGET when absent. */
  readonly rowBudget?: number;
}

/** Sequences (ascending) cut into groups whose rows fit the budget, in order. */
const groupsOf = (counts: ReadonlyMap<number, number>, budget: number): number[][] => {
  const groups: number[][] = [];
  let group: number[] = [];
  let rows = 0;
  for (const sequence of [...counts.keys()].sort((a, b) => a - b)) {
    const own = counts.get(sequence)!;
    if (group.length > 0 && rows + own > budget) {
      groups.push(group);
      group = [];
      rows = 0;
    }
    group.push(sequence);
    rows += own;
  }
  if (group.length > 0) groups.push(group);
  return groups;
};

/**
 * Writes a scenario run as a detection benchmark into `archive`, one sequence per file: TimeEval's test
 * files (every numeric field a value column, the labels) then its train files (the same sequences in the
 * run without the scenario: the matched counterfactual) and its registry; or NAB's data files and label
 * files. The manifest, last, lists the inputs, what the engine placed (the run's outcome line), every
 * file and the column map. The run is never held whole: a run in sequence order streams into its files
 * as it comes, one file open at a time; a time-ordered run, whose sequences interleave, is made again per
 * group of sequences that fits `rowBudget` (docs/datasets.md#time-ordered-runs).
 */
export const writeDataset = async (archive: DatasetArchive, source: DatasetSource, run: RecordRun, options: DatasetOptions): Promise<void> => {
  const fields = numericFields(run.serviceVersion, run.preset, run.model);
  const nab = options.layout === 'nab';
  const valueFields = nab ? [options.field ?? fields[0]!] : fields;
  const columns: Record<string, string> = nab ? { value: valueFields[0]! } : Object.fromEntries(fields.map((field, i) => [`value-${i}`, field]));
  const header = nab ? 'timestamp,value\n' : `timestamp,${fields.map((_, i) => `value-${i}`).join(',')},is_anomaly,anomaly_type\n`;
  const budget = options.rowBudget ?? ROW_BUDGET;
  const timeOrdered = run.timing?.order === 'time';

  const testRow: RowFormat = (record, timestamp, label) => {
    const values = valueFields.map((field) => String(record[field]));
    return nab ? `${timestamp},${values[0]}\n` : `${timestamp},${values.join(',')},${label === null ? 0 : 1},${label ?? ''}\n`;
  };
  const trainRow: RowFormat = (record, timestamp) => `${timestamp},${fields.map((field) => String(record[field])).join(',')},0,\n`;

  const writeFile = (file: SequenceFile, rows: readonly string[]): void => {
    archive.open(file.entry.path);
    archive.write(header);
    for (const row of rows) archive.write(row);
    archive.close();
  };

  /** A run in sequence order: each sequence's records come together, so each file is written as they come. */
  const streamed = async (each: RecordRun, open: (sequence: number) => SequenceFile, keep: (sequence: number) => boolean) => {
    const files: SequenceFile[] = [];
    let file: SequenceFile | undefined;
    const outcome = await source.records(each, (record) => {
      const sequence = record.sequence_id as number;
      if (!keep(sequence)) return;
      if (file?.entry.sequence !== sequence) {
        if (file !== undefined) archive.close();
        file = open(sequence);
        files.push(file);
        archive.open(file.entry.path);
        archive.write(header);
      }
      archive.write(file.row(record));
    });
    if (file !== undefined) archive.close();
    return { outcome, files };
  };

  /**
   * A time-ordered run: a first pass counts each sequence's rows (and has the outcome), then each group
   * of sequences that fits the budget is one more run of the same inputs, whose records of those
   * sequences are kept as rows and written file by file, in ascending sequence_id.
   */
  const grouped = async (each: RecordRun, open: (sequence: number) => SequenceFile, keep: (sequence: number) => boolean) => {
    const counts = new Map<number, number>();
    const outcome = await source.records(each, (record) => {
      const sequence = record.sequence_id as number;
      if (keep(sequence)) counts.set(sequence, (counts.get(sequence) ?? 0) + 1);
    });
    const files: SequenceFile[] = [];
    for (const group of groupsOf(counts, budget)) {
      const kept = new Map(group.map((sequence) => [sequence, { file: open(sequence), rows: [] as string[] }]));
      await source.records(each, (record) => {
        const own = kept.get(record.sequence_id as number);
        if (own !== undefined) own.rows.push(own.file.row(record));
      });
      for (const [sequence, { file, rows }] of kept) {
        // The run is a pure function of its inputs: a pass that saw other records is no run to label.
        if (rows.length !== counts.get(sequence)) throw internalError();
        writeFile(file, rows);
        files.push(file);
        kept.delete(sequence);
        await archive.ready();
      }
    }
    return { outcome, files };
  };
  const pass = timeOrdered ? grouped : streamed;

  const tested = await pass(run, (sequence) => new SequenceFile(nab ? `data/${sequence}.csv` : `test/${sequence}.csv`, sequence, testRow), () => true);
  const testFiles = tested.files;
  const files = testFiles.map((each) => each.entry);

  if (nab) {
    const labels: Record<string, (string | number)[]> = {};
    const nabWindows: Record<string, (string | number)[][]> = {};
    for (const each of testFiles) {
      const key = `${each.entry.sequence}.csv`;
      labels[key] = each.windows.map((window) => window.start);
      nabWindows[key] = each.windows.map((window) => [window.start, window.end]);
    }
    archive.add('labels/combined_labels.json', `${JSON.stringify(labels, null, 2)}\n`);
    archive.add('labels/combined_windows.json', `${JSON.stringify(nabWindows, null, 2)}\n`);
  } else {
    // The matched counterfactual: the same inputs (order and population too) without the scenario, for
    // the sequences the test has.
    const testedSequences = new Set(testFiles.map((each) => each.entry.sequence));
    const trained = await pass(
      { ...run, scenario: undefined },
      (sequence) => new SequenceFile(`train/${sequence}.csv`, sequence, trainRow),
      (sequence) => testedSequences.has(sequence),
    );
    files.push(...trained.files.map((each) => each.entry));
    const trainedSequences = new Set(trained.files.map((each) => each.entry.sequence));
    const registry = Object.fromEntries(
      testFiles.map(({ entry }) => [
        String(entry.sequence),
        {
          test_path: entry.path,
          ...(trainedSequences.has(entry.sequence) ? { train_path: `train/${entry.sequence}.csv` } : {}),
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
    // The engine's own outcome, as the run's result lists it.
    placed: tested.outcome?.placed ?? [],
    unplaced: tested.outcome?.unplaced ?? [],
    // What the files' timestamps are: engine 4's event_time, or the step within the sequence before it.
    timestamp: Number(run.serviceVersion.split('.')[0]) >= EVENT_TIME_ENGINE_MAJOR ? 'event_time' : 'step',
    columns,
    files,
  };
  archive.add('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
  archive.end();
};
