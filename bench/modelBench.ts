// The model row of `npm run bench:engine` (docs/models.md#implementation-notes): a model of
// the finance preset's size (bench/financeSizedModel.json: 6 states, 3 carried numbers, a record of 6
// fields and scenario_event) against engine 3's finance, writeRecordsJson for both, interleaved in each
// repetition so both see the same machine noise; target ratio >= 0.5. Then the compile time of the
// largest allowed definition (bench/largestModel.ts) and its cost per record in expression nodes.
import { readFileSync } from 'node:fs';
import { createSimulation } from '../shared/engine/createSimulation.ts';
import { writeRecordsJson } from '../shared/engine/writeRecordsJson.ts';
import { checkModelDefinition, compileModel } from '../shared/models/index.ts';
import type { ModelDefinition } from '../shared/models/index.ts';
import type { ModelSimulator } from '../shared/models/ModelSimulator.ts';
import { largestModelDefinition } from './largestModel.ts';

const MIN_MODEL_VS_FINANCE = 0.5;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const fmt = (x: number, digits = 2): string => x.toFixed(digits);

/** Prints the model rows; true when the model reaches the target ratio. */
export function benchModels(): boolean {
  const definition = JSON.parse(readFileSync(new URL('financeSizedModel.json', import.meta.url), 'utf8')) as unknown;
  const check = checkModelDefinition(definition);
  if (!check.valid) throw new Error(`bench model invalid: ${JSON.stringify(check.issues)}`);
  const model = compileModel('finance_sized', check.definition!);
  console.log('\nmodels: a finance-sized model against engine 3 finance (writeRecordsJson, Mrec/s medians; ratio: median of the ratios within each repetition)');
  console.log(['n', 'model', 'finance e3', 'model/finance'].map((h, i) => (i === 0 ? h.padEnd(8) : h.padStart(15))).join(''));
  let ok = true;
  for (const n of [1_000, 100_000]) {
    const modelInput = { model, profile: 'balanced', seed: 12345, numInteractions: n };
    const financeInput = { preset: 'finance' as const, profile: 'balanced_investor', seed: 12345, numInteractions: n, serviceVersion: '3.0.0' };
    const reps = n <= 1_000 ? 400 : 25;
    const warmup = n <= 1_000 ? 100 : 3;
    const modelMs: number[] = [];
    const financeMs: number[] = [];
    const ratios: number[] = [];
    let sink = 0;
    for (let r = 0; r < warmup + reps; r++) {
      // Alternate which runs first, so neither always follows the other's garbage.
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      const ms = [0, 0];
      for (const which of order) {
        const t0 = performance.now();
        sink += writeRecordsJson(which === 0 ? modelInput : financeInput).length;
        ms[which] = performance.now() - t0;
      }
      if (r >= warmup) {
        modelMs.push(ms[0]!);
        financeMs.push(ms[1]!);
        ratios.push(ms[1]! / ms[0]!);
      }
    }
    if (sink <= 0) throw new Error('nothing printed');
    const ratio = median(ratios);
    if (ratio < MIN_MODEL_VS_FINANCE) ok = false;
    console.log(String(n).padEnd(8) + [fmt(n / median(modelMs) / 1000), fmt(n / median(financeMs) / 1000), fmt(ratio)].map((c) => c.padStart(15)).join(''));
  }
  console.log(`${ok ? 'PASS' : 'FAIL'}: model >= ${MIN_MODEL_VS_FINANCE} x engine 3 finance: ${ok ? 'yes' : 'no'}`);

  // The largest definition the language allows: check and compile, then its cost per record in nodes.
  const largest = largestModelDefinition();
  const checkMs: number[] = [];
  const compileMs: number[] = [];
  for (let r = 0; r < 30; r++) {
    const t0 = performance.now();
    const checked = checkModelDefinition(largest);
    const t1 = performance.now();
    compileModel('largest', checked.definition!);
    const t2 = performance.now();
    if (r >= 5) {
      checkMs.push(t1 - t0);
      compileMs.push(t2 - t1);
    }
  }
  const counted = compileModel('largest', largest as unknown as ModelDefinition, { countNodes: true });
  const { simulator } = createSimulation({ model: counted, profile: 'profile0', seed: 1, numInteractions: 1000 });
  for (let i = 0; i < 1000; i++) simulator.next();
  const perRecord = (simulator as ModelSimulator).evaluatedNodes / 1000;
  const largestModel = compileModel('largest', largest as unknown as ModelDefinition);
  const runSamples: number[] = [];
  let bytes = 0;
  for (let r = 0; r < 23; r++) {
    const t0 = performance.now();
    bytes = writeRecordsJson({ model: largestModel, profile: 'profile0', seed: 1, numInteractions: 1000 }).length;
    if (r >= 3) runSamples.push(performance.now() - t0);
  }
  const runMs = median(runSamples);
  console.log(
    `largest definition (${Buffer.byteLength(JSON.stringify(largest))} bytes, ${counted.nodeCount} expression nodes): check ${fmt(median(checkMs))} ms, compile ${fmt(median(compileMs))} ms (medians of 25); ` +
      `1,000 records: ${fmt(perRecord, 0)} nodes evaluated per record, ${fmt(runMs)} ms (median of 20), ${fmt(bytes / 2 ** 20, 2)} MiB`,
  );
  return ok;
}
