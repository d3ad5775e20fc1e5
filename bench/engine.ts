// Engine throughput against the serialization floor: writeRecordsJson (generate + print bytes) versus
// Buffer.from(JSON.stringify(records)) of the same records already built, measured interleaved in the same
// run so both see the same machine noise. Targets (issues 3 and 16): ratio >= 0.5 on every row, and >= 1.5 M
// finance records/s for n = 100,000, for every engine version the service ships. Issue 22: engine 3 at
// >= 0.8 x engine 2's records/s for every preset and >= 1 x JSON.stringify of its own records, engine 2,
// engine 3 and the stringify interleaved in each repetition (and engine 3 with a scenario beside them).
// Issue 33: a finance-sized model at >= 0.5 x engine 3's finance, and the largest model's compile time
// (bench/modelBench.ts).
import os from 'node:os';
import { PRESETS, generateRecords, writeRecordsJson } from '../shared/engine/index.ts';
import { ENGINE_MODELS } from '../shared/engine/presetModels.ts';
import type { SimulationInput } from '../shared/engine/index.ts';
import { benchModels } from './modelBench.ts';
import { writeRunAlone } from './writeRunAlone.ts';

const SIZES = [1_000, 100_000];
const MIN_RATIO = 0.5;
const MIN_FINANCE_RECORDS_PER_S = 1_500_000;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Row {
  engine: string;
  preset: string;
  n: number;
  bytes: number;
  engineMs: number;
  baselineMs: number;
}

function measure(input: SimulationInput): Row {
  const n = input.numInteractions;
  const records = generateRecords(input);
  const bytes = writeRecordsJson(input).length;
  // Enough repetitions for a stable median in ~1.5 s per row; the first ones are warm-up.
  const reps = n <= 1_000 ? 400 : 15;
  const warmup = n <= 1_000 ? 100 : 3;
  const engine: number[] = [];
  const baseline: number[] = [];
  let sink = 0;
  for (let r = 0; r < warmup + reps; r++) {
    const t0 = performance.now();
    sink += writeRecordsJson(input).length;
    const t1 = performance.now();
    sink += Buffer.from(JSON.stringify(records)).length;
    const t2 = performance.now();
    if (r >= warmup) {
      engine.push(t1 - t0);
      baseline.push(t2 - t1);
    }
  }
  if (sink !== (warmup + reps) * 2 * bytes) throw new Error('engine and baseline printed different sizes');
  return { engine: input.serviceVersion ?? '', preset: input.preset, n, bytes, engineMs: median(engine), baselineMs: median(baseline) };
}

function fmt(x: number, digits = 2): string {
  return x.toFixed(digits);
}

const rows: Row[] = [];
for (const { version } of ENGINE_MODELS) {
  for (const preset of PRESETS) {
    for (const n of SIZES) {
      rows.push(measure({ preset: preset.name, profile: preset.default_profile, seed: 12345, numInteractions: n, serviceVersion: version }));
    }
  }
}

console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), one thread`);
console.log(
  ['engine', 'preset', 'n', 'engine Mrec/s', 'engine MB/s', 'baseline Mrec/s', 'baseline MB/s', 'ratio']
    .map((h, i) => (i < 3 ? h.padEnd([8, 11, 8][i]!) : h.padStart(16)))
    .join(''),
);
let ratiosOk = true;
for (const row of rows) {
  const engineRate = row.n / row.engineMs / 1000;
  const baselineRate = row.n / row.baselineMs / 1000;
  const ratio = row.baselineMs / row.engineMs;
  if (ratio < MIN_RATIO) ratiosOk = false;
  console.log(
    row.engine.padEnd(8) +
      row.preset.padEnd(11) +
      String(row.n).padEnd(8) +
      [fmt(engineRate), fmt(row.bytes / row.engineMs / 1000, 1), fmt(baselineRate), fmt(row.bytes / row.baselineMs / 1000, 1), fmt(ratio)]
        .map((c) => c.padStart(16))
        .join(''),
  );
}
let financeOk = true;
for (const finance of rows.filter((r) => r.preset === 'finance' && r.n === 100_000)) {
  const financeRate = finance.n / (finance.engineMs / 1000);
  if (financeRate < MIN_FINANCE_RECORDS_PER_S) financeOk = false;
  console.log(`engine ${finance.engine} finance records/s (n=100000): ${Math.round(financeRate).toLocaleString('en-US')}`);
}
console.log(
  `${ratiosOk && financeOk ? 'PASS' : 'FAIL'}: ratio >= ${MIN_RATIO} on every row: ${ratiosOk ? 'yes' : 'no'}; ` +
    `finance >= ${MIN_FINANCE_RECORDS_PER_S.toLocaleString('en-US')} records/s: ${financeOk ? 'yes' : 'no'}`,
);

// Engine 3 against engine 2 and against JSON.stringify of engine 3's own records, interleaved.
const MIN_ENGINE3_VS_ENGINE2 = 0.8;
const MIN_ENGINE3_VS_STRINGIFY = 1;
interface Engine3Row {
  preset: string;
  n: number;
  engine2Ms: number;
  engine3Ms: number;
  scenarioMs: number;
  stringifyMs: number;
  /** Medians of the ratios within each repetition: the three runs of a repetition share its machine noise. */
  vsTwo: number;
  vsStringify: number;
}

function measureEngine3(preset: (typeof PRESETS)[number], n: number): Engine3Row {
  const input: SimulationInput = { preset: preset.name, profile: preset.default_profile, seed: 12345, numInteractions: n };
  const two = { ...input, serviceVersion: '2.0.0' };
  const three = { ...input, serviceVersion: '3.0.0' };
  // Every event type of the preset, on every sequence, over most of each sequence.
  const events = preset.scenario_events.map(({ type }, k) => ({ type, sequence: 'all' as const, at_step: 1 + 10 * k, duration: 1000, intensity: 1 }));
  const scenario = { ...three, scenario: { events } };
  const records = generateRecords(three);
  const reps = n <= 1_000 ? 400 : 25;
  const warmup = n <= 1_000 ? 100 : 3;
  const samples: [number[], number[], number[], number[]] = [[], [], [], []];
  const vsTwo: number[] = [];
  const vsStringify: number[] = [];
  let sink = 0;
  const runs: (() => number)[] = [
    () => writeRecordsJson(two).length,
    () => writeRecordsJson(three).length,
    () => Buffer.from(JSON.stringify(records)).length,
    () => writeRecordsJson(scenario).length,
  ];
  const ms = [0, 0, 0, 0];
  for (let r = 0; r < warmup + reps; r++) {
    // The order turns every repetition, so no run always follows the same one (and its garbage).
    for (let k = 0; k < runs.length; k++) {
      const which = (k + r) % runs.length;
      const t0 = performance.now();
      sink += runs[which]!();
      ms[which] = performance.now() - t0;
    }
    if (r >= warmup) {
      ms.forEach((x, k) => samples[k]!.push(x));
      vsTwo.push(ms[0]! / ms[1]!);
      vsStringify.push(ms[2]! / ms[1]!);
    }
  }
  if (sink <= 0) throw new Error('nothing printed');
  const [engine2Ms, engine3Ms, stringifyMs, scenarioMs] = samples.map(median) as [number, number, number, number];
  return { preset: preset.name, n, engine2Ms, engine3Ms, scenarioMs, stringifyMs, vsTwo: median(vsTwo), vsStringify: median(vsStringify) };
}

const engine3Rows = PRESETS.flatMap((preset) => SIZES.map((n) => measureEngine3(preset, n)));
console.log(
  '\nengine 3 against engine 2 and JSON.stringify of its own records (Mrec/s, medians; ratios: medians of the ratios within each repetition, and the ratio of the medians)',
);
console.log(
  ['preset', 'n', 'engine 2', 'engine 3', 'e3 scenario', 'stringify', 'e3/e2', 'e3/stringify', 'e3/e2 medians']
    .map((h, i) => (i < 2 ? h.padEnd([11, 8][i]!) : h.padStart(14)))
    .join(''),
);
let engine3Ok = true;
for (const row of engine3Rows) {
  const rate = (ms: number): string => fmt(row.n / ms / 1000);
  const { vsTwo, vsStringify } = row;
  if (vsTwo < MIN_ENGINE3_VS_ENGINE2 || vsStringify < MIN_ENGINE3_VS_STRINGIFY) engine3Ok = false;
  console.log(
    row.preset.padEnd(11) +
      String(row.n).padEnd(8) +
      [rate(row.engine2Ms), rate(row.engine3Ms), rate(row.scenarioMs), rate(row.stringifyMs), fmt(vsTwo), fmt(vsStringify), fmt(row.engine2Ms / row.engine3Ms)]
        .map((c) => c.padStart(14))
        .join(''),
  );
}
console.log(
  `${engine3Ok ? 'PASS' : 'FAIL'}: engine 3 >= ${MIN_ENGINE3_VS_ENGINE2} x engine 2 and >= ${MIN_ENGINE3_VS_STRINGIFY} x JSON.stringify on every row: ${engine3Ok ? 'yes' : 'no'}`,
);
const modelsOk = benchModels();
process.exitCode = ratiosOk && financeOk && engine3Ok && modelsOk ? 0 : 1;

// The floor of a 1,000,000-record streamed response (npm run bench compares against the same figure).
for (const format of ['json', 'ndjson', 'csv'] as const) {
  const alone = writeRunAlone('finance', 1_000_000, format);
  console.log(`finance n=1000000 ${format.padEnd(6)} in chunks, one thread: ${fmt(alone.ms, 0)} ms, ${fmt(alone.bytes / 2 ** 20, 1)} MiB, ${fmt(alone.bytes / alone.ms / 1000, 1)} MB/s`);
}
