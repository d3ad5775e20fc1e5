import { buffer } from 'node:stream/consumers';
import test, { type ExecutionContext } from 'ava';
import { DatasetArchive } from '../../api/datasets/DatasetArchive.ts';
import { type RecordRun, streamRunRecords } from '../../api/datasets/streamRunRecords.ts';
import { writeDataset } from '../../api/datasets/writeDataset.ts';
import { findReplay } from '../../api/runs/findReplay.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { getWithKey } from '../history/historyFixtures.ts';
import { postSimulation, type SimulationResponse } from '../simulations/postSimulation.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { type Archive, entriesUnder, readArchive } from './readArchive.ts';

// The archive's labels are the engine's (docs/datasets.md#2-the-archive): at_time events, placed from each
// sequence's own clock, are windows like any other and the manifest's placed is the result's; a run in
// time order (docs/datasets.md#time-ordered-runs) is still one file per sequence holding that sequence's
// records of the run, in their order, made in passes when its rows exceed the budget.
let app: TestApp;
let worker: SimulationWorker;

test.before(async () => {
  app = await startTestApp();
  worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 2 });
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
});

type Row = Record<string, string | number | null>;
type Manifest = {
  placed: unknown[];
  unplaced: unknown[];
  columns: Record<string, string>;
  files: { path: string; sequence: number; rows: number; anomalies: number; anomalous_rows: number }[];
};

const bySequence = (data: readonly Row[]): Map<number, Row[]> => {
  const map = new Map<number, Row[]>();
  for (const record of data) {
    const sequence = record.sequence_id as number;
    const own = map.get(sequence);
    if (own === undefined) map.set(sequence, [record]);
    else own.push(record);
  }
  return map;
};

/** The records' event windows, `[start, end]` event_times: maximal runs of one label. */
const windowsOf = (rows: readonly Row[]): [string, string][] => {
  const windows: [string, string][] = [];
  rows.forEach((record, i) => {
    if (record.scenario_event === null) return;
    if (record.scenario_event === rows[i - 1]?.scenario_event) windows.at(-1)![1] = String(record.event_time);
    else windows.push([String(record.event_time), String(record.event_time)]);
  });
  return windows;
};

const download = async (key: string, id: string, layout: string): Promise<Archive> => {
  const response = await getWithKey(app, `/v1/simulations/${id}/dataset?layout=${layout}`, key);
  if (response.status !== 200) throw new Error(response.text);
  return readArchive(response.bytes);
};

/**
 * The whole archive against the run's own records: unique entries, one test (or data) file per sequence
 * of the run with exactly its records in order, their labels, windows and counts; the train files the
 * clean run's records of those sequences; the manifest's placed the result's.
 */
const checkArchive = async (t: ExecutionContext, archive: Archive, layout: 'timeeval' | 'nab', treated: SimulationResponse, clean?: SimulationResponse): Promise<void> => {
  t.is(new Set(archive.entries).size, archive.entries.length, 'entry names are unique');
  const records = bySequence(treated.body.data);
  const sequences = [...records.keys()].sort((a, b) => a - b);
  const manifest = await archive.json<Manifest>('manifest.json');
  t.deepEqual(manifest.placed, treated.body.scenario.placed);
  t.deepEqual(manifest.unplaced, treated.body.scenario.unplaced);
  const fields = Object.values(manifest.columns);
  const folder = layout === 'nab' ? 'data' : 'test';
  t.deepEqual(await entriesUnder(archive, folder), sequences.map((sequence) => `${sequence}.csv`).sort());
  const testFiles = manifest.files.filter((file) => file.path.startsWith(`${folder}/`));
  t.deepEqual(testFiles.map((file) => file.sequence), sequences);
  const labelled = testFiles.reduce((sum, file) => sum + file.anomalous_rows, 0);
  t.true(labelled > 50, `${labelled} labelled rows`);
  const windows = layout === 'nab' ? await archive.json<Record<string, [string, string][]>>('labels/combined_windows.json') : {};
  const labels = layout === 'nab' ? await archive.json<Record<string, string[]>>('labels/combined_labels.json') : {};
  for (const [sequence, rows] of records) {
    const [, ...cells] = await archive.csv(`${folder}/${sequence}.csv`);
    const expected = rows.map((record) => [
      String(record.event_time),
      ...fields.map((field) => String(record[field])),
      ...(layout === 'nab' ? [] : [record.scenario_event === null ? '0' : '1', String(record.scenario_event ?? '')]),
    ]);
    if (JSON.stringify(cells) !== JSON.stringify(expected)) t.fail(`${folder}/${sequence}.csv differs from the run's records of sequence ${sequence}`);
    const own = windowsOf(rows);
    t.like(
      testFiles.find((file) => file.sequence === sequence),
      { rows: rows.length, anomalies: own.length, anomalous_rows: rows.filter((record) => record.scenario_event !== null).length },
      `sequence ${sequence}`,
    );
    if (layout === 'nab') {
      t.deepEqual(windows[`${sequence}.csv`], own, `sequence ${sequence}`);
      t.deepEqual(labels[`${sequence}.csv`], own.map(([start]) => start));
    }
  }
  if (clean === undefined) return;
  const control = bySequence(clean.body.data);
  const trained = sequences.filter((sequence) => control.has(sequence));
  t.deepEqual(await entriesUnder(archive, 'train'), trained.map((sequence) => `${sequence}.csv`).sort());
  for (const sequence of trained) {
    const [, ...cells] = await archive.csv(`train/${sequence}.csv`);
    const expected = control.get(sequence)!.map((record) => [String(record.event_time), ...fields.map((field) => String(record[field])), '0', '']);
    if (JSON.stringify(cells) !== JSON.stringify(expected)) t.fail(`train/${sequence}.csv differs from the clean run's records of sequence ${sequence}`);
  }
};

const AT_TIME = {
  preset: 'education',
  profile: 'fast_accurate',
  seed: 42,
  engine_version: '4.0.0',
  num_interactions: 2000,
  scenario: {
    events: [
      { type: 'fatigue', sequence: 'all', at_step: 5, duration: 20, intensity: 1 },
      { type: 'difficulty_spike', sequence: 3, at_time: '2026-01-09T00:00:00.000Z', duration: 30, intensity: 2 },
      { type: 'mastery_jump', sequence: 'all', at_time: '2026-01-20T12:00:00.000Z', duration: 10, intensity: 0.5 },
    ],
  },
};

test('at_time events: the manifest places what the result placed and their windows are in the labels', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  const treated = await postSimulation(app, AT_TIME, { key: me.key });
  t.is(treated.status, 200, treated.text);
  const placed = treated.body.scenario.placed as { type: string; sequence: number; at_step: number; duration: number }[];
  t.deepEqual(treated.body.scenario.unplaced, []);
  const late = placed.filter((event) => event.type === 'mastery_jump' && event.at_step > 24);
  t.true(late.length >= 3, JSON.stringify(placed));
  const archive = await download(me.key, treated.body.simulation_id, 'nab');
  t.teardown(() => archive.remove());
  await checkArchive(t, archive, 'nab', treated);
  // An at_time event clear of the fatigue window at steps 5–24 is a window of its own, from its step.
  const records = bySequence(treated.body.data);
  const windows = await archive.json<Record<string, [string, string][]>>('labels/combined_windows.json');
  for (const event of late) {
    const rows = records.get(event.sequence)!;
    const end = Math.min(event.at_step + event.duration - 1, rows.length);
    t.true(
      windows[`${event.sequence}.csv`]!.some(([start, last]) => start === rows[event.at_step - 1]!.event_time && last === rows[end - 1]!.event_time),
      `sequence ${event.sequence}: ${JSON.stringify(windows[`${event.sequence}.csv`])}`,
    );
  }
});

const TIME_ORDERED = {
  preset: 'education',
  profile: 'fast_accurate',
  seed: 7,
  num_interactions: 3000,
  order: 'time',
  population: 30,
  scenario: {
    events: [{ type: 'mastery_jump', sequence: 'all', at_time: '2026-01-06T00:00:00.000Z', duration: 8, intensity: 1 }],
    random: { types: ['fatigue', 'difficulty_spike'], per_sequence: 1.5, duration: [3, 8], intensity: [0.5, 2] },
  },
};

test('a time-ordered run: one file per sequence with its records in order, labels from the records, train files from the clean run', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  const treated = await postSimulation(app, TIME_ORDERED, { key: me.key });
  t.is(treated.status, 200, treated.text);
  const clean = await postSimulation(app, { ...TIME_ORDERED, scenario: undefined }, { key: me.key });
  const records = bySequence(treated.body.data);
  // Interleaved: the run's records of a sequence are not together.
  t.true(treated.body.data.some((record: Row, i: number) => i > 0 && record.sequence_id !== treated.body.data[i - 1].sequence_id && records.get(record.sequence_id as number)![0] !== record));
  t.true(records.size > 30, String(records.size));
  for (const layout of ['timeeval', 'nab'] as const) {
    const archive = await download(me.key, treated.body.simulation_id, layout);
    t.teardown(() => archive.remove());
    await checkArchive(t, archive, layout, treated, layout === 'timeeval' ? clean : undefined);
  }
});

test('a time-ordered run larger than the row budget is made in several passes, each group of sequences written whole', async (t) => {
  const me = await buildCaller(app.services.pool, {});
  const treated = await postSimulation(app, TIME_ORDERED, { key: me.key });
  t.is(treated.status, 200, treated.text);
  const clean = await postSimulation(app, { ...TIME_ORDERED, scenario: undefined }, { key: me.key });
  const found = await findReplay(app.services, { accountId: me.accountId, simulationId: treated.body.simulation_id });
  if (!('spec' in found)) throw found;
  const archive = new DatasetArchive();
  const bytes = buffer(archive.stream);
  const runs: { scenario: boolean }[] = [];
  const source = {
    records: (run: RecordRun, onRecord: Parameters<typeof streamRunRecords>[2]) => {
      runs.push({ scenario: run.scenario !== undefined });
      return streamRunRecords(app.services, run, onRecord, () => archive.ready(), new AbortController().signal);
    },
  };
  await writeDataset(archive, source, found.spec, { layout: 'timeeval', rowBudget: 700 });
  // 3000 records in groups of at most 700 rows (or one sequence): a counting pass and at least 5 more, each way.
  const treatedRuns = runs.filter((run) => run.scenario).length;
  t.true(treatedRuns >= 6, String(treatedRuns));
  t.is(runs.length - treatedRuns, treatedRuns);
  const read = await readArchive(await bytes);
  t.teardown(() => read.remove());
  await checkArchive(t, read, 'timeeval', treated, clean);
});
