// Engine 4 (docs/api.md#event-time) against engine 3, per preset, interleaved in each repetition
// so they share the machine's noise: in sequence order (target >= 0.8 x engine 3) and in time order with
// a population of 100 and of 10,000 (target >= 0.6 x), n = 100,000; then the resident memory of a
// 1,000,000-record time-ordered run printed in chunks (it must stay flat: the run is never held).
import { PRESETS, writeRecordChunks, writeRecordsJson } from '../shared/engine/index.ts';
import type { SimulationInput } from '../shared/engine/index.ts';

const N = 100_000;
const MIN_SEQUENCE = 0.8;
const MIN_TIME = 0.6;

const median = (samples: number[]): number => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
// The main thread's CPU time, not the wall clock: on a shared machine a run is preempted for tens of
// milliseconds at a time, which the wall clock charges to whichever run was going (the ratios swung by
// 0.3 between repetitions); the thread's own time counts the engine's work (and its garbage collection).
const cpuMs = (): number => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};
const fmt = (x: number, digits = 2): string => x.toFixed(digits);

interface EventTimeRow {
  readonly preset: string;
  readonly ms: readonly number[];
  readonly ratios: readonly number[];
}

function measure(preset: (typeof PRESETS)[number]): EventTimeRow {
  const base: SimulationInput = { preset: preset.name, profile: preset.default_profile, seed: 12345, numInteractions: N };
  const inputs: SimulationInput[] = [
    { ...base, serviceVersion: '3.0.0' },
    { ...base, serviceVersion: '4.0.0' },
    { ...base, serviceVersion: '4.0.0', order: 'time', population: 100 },
    { ...base, serviceVersion: '4.0.0', order: 'time', population: 10_000 },
  ];
  const samples = inputs.map((): number[] => []);
  const ratios = inputs.slice(1).map((): number[] => []);
  let sink = 0;
  for (let r = 0; r < 3 + 21; r++) {
    const ms = inputs.map((input) => {
      const t0 = cpuMs();
      sink += writeRecordsJson(input).length;
      return cpuMs() - t0;
    });
    if (r < 3) continue;
    ms.forEach((x, i) => samples[i]!.push(x));
    ms.slice(1).forEach((x, i) => ratios[i]!.push(ms[0]! / x));
  }
  if (sink <= 0) throw new Error('nothing printed');
  return { preset: preset.name, ms: samples.map(median), ratios: ratios.map(median) };
}

/** Resident memory while a 1,000,000-record time-ordered run is printed in chunks: start, peak, end (MiB). */
function memoryOfTimeOrderedRun(preset: (typeof PRESETS)[number], population: number): { start: number; peak: number; end: number; ms: number } {
  const mib = (): number => process.memoryUsage().rss / 2 ** 20;
  const start = mib();
  let peak = start;
  let bytes = 0;
  const t0 = performance.now();
  const input: SimulationInput = { preset: preset.name, profile: preset.default_profile, seed: 7, numInteractions: 1_000_000, order: 'time', population };
  for (const chunk of writeRecordChunks(input, 'ndjson')) {
    bytes += chunk.byteLength;
    peak = Math.max(peak, mib());
  }
  if (bytes <= 0) throw new Error('nothing printed');
  return { start, peak, end: mib(), ms: performance.now() - t0 };
}

export function benchEventTime(): boolean {
  console.log(`\nengine 4 against engine 3, n=${N} (Mrec/s of main-thread CPU time, medians; ratios: medians of the ratios within each repetition)`);
  console.log(
    ['preset', 'engine 3', 'e4 sequence', 'e4 time/100', 'e4 time/10k', 'seq/e3', 'time100/e3', 'time10k/e3'].map((h, i) => (i === 0 ? h.padEnd(11) : h.padStart(13))).join(''),
  );
  let ok = true;
  for (const preset of PRESETS) {
    const row = measure(preset);
    const [sequence, time100, time10k] = row.ratios as [number, number, number];
    if (sequence < MIN_SEQUENCE || time100 < MIN_TIME || time10k < MIN_TIME) ok = false;
    console.log(row.preset.padEnd(11) + [...row.ms.map((ms) => fmt(N / ms / 1000)), fmt(sequence), fmt(time100), fmt(time10k)].map((c) => c.padStart(13)).join(''));
  }
  console.log(`${ok ? 'PASS' : 'FAIL'}: engine 4 >= ${MIN_SEQUENCE} x engine 3 in sequence order and >= ${MIN_TIME} x in time order on every row: ${ok ? 'yes' : 'no'}`);
  for (const population of [100, 10_000]) {
    const memory = memoryOfTimeOrderedRun(PRESETS.find((p) => p.name === 'mobile_app')!, population);
    console.log(
      `mobile_app n=1000000 order=time population=${population} ndjson in chunks: RSS ${fmt(memory.start, 0)} MiB at start, ` +
        `${fmt(memory.peak, 0)} MiB peak, ${fmt(memory.end, 0)} MiB at end (${fmt(memory.ms, 0)} ms)`,
    );
  }
  return ok;
}
