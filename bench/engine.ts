// Engine throughput against the serialization floor: writeRecordsJson (generate + print bytes) versus
// Buffer.from(JSON.stringify(records)) of the same records already built, measured interleaved in the same
// run so both see the same machine noise. Targets (issues 3 and 16): ratio >= 0.5 on every row, and >= 1.5 M
// finance records/s for n = 100,000, for every engine version the service ships.
import os from 'node:os';
import { PRESETS, generateRecords, writeRecordsJson } from '../shared/engine/index.ts';
import { ENGINE_MODELS } from '../shared/engine/presetModels.ts';
import type { SimulationInput } from '../shared/engine/index.ts';
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
process.exitCode = ratiosOk && financeOk ? 0 : 1;

// The floor of a 1,000,000-record streamed response (npm run bench compares against the same figure).
for (const format of ['json', 'ndjson', 'csv'] as const) {
  const alone = writeRunAlone('finance', 1_000_000, format);
  console.log(`finance n=1000000 ${format.padEnd(6)} in chunks, one thread: ${fmt(alone.ms, 0)} ms, ${fmt(alone.bytes / 2 ** 20, 1)} MiB, ${fmt(alone.bytes / alone.ms / 1000, 1)} MB/s`);
}
