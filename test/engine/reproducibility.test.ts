import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import test from 'ava';
import { PRESETS, generateRecords, writeRecordsJson } from '../../shared/engine/index.ts';
import type { SimulationInput } from '../../shared/engine/index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/runEngine.ts', import.meta.url));

const INPUTS: SimulationInput[] = PRESETS.flatMap((p, i) => {
  const input = { preset: p.name, profile: p.supported_profiles[p.supported_profiles.length - 1]!, seed: 1_000_003 * (i + 1), numInteractions: 3_000 };
  // Engine 3 with a scenario too: its events go through the same keyed draws and the same Math.log/sqrt.
  const events = p.scenario_events.map(({ type }, k) => ({ type, sequence: k === 0 ? ('all' as const) : k + 1, at_step: 3 + 5 * k, duration: 40, intensity: 0.5 + k }));
  return [input, { ...input, scenario: { events } }];
});

function inAnotherProcess(input: SimulationInput): Buffer {
  // --import=tsx works whether or not this Node strips types natively.
  const child = spawnSync(process.execPath, ['--import=tsx', FIXTURE, JSON.stringify(input)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`child failed: ${child.stderr.toString()}`);
  return child.stdout;
}

async function inAnotherThread(input: SimulationInput): Promise<Buffer> {
  const worker = new Worker(FIXTURE, { workerData: input });
  try {
    const bytes = await new Promise<Uint8Array>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    return Buffer.from(bytes);
  } finally {
    await worker.terminate();
  }
}

test('identical inputs give byte-identical JSON on repeated runs', (t) => {
  for (const input of INPUTS) {
    const first = writeRecordsJson(input);
    t.true(first.equals(writeRecordsJson(input)), input.preset);
    // A run of another preset in between must not leak state into the next run.
    writeRecordsJson({ ...input, seed: input.seed + 1 });
    t.true(first.equals(writeRecordsJson(input)), input.preset);
  }
});

test('identical inputs give byte-identical JSON in another process', (t) => {
  for (const input of INPUTS) {
    t.true(inAnotherProcess(input).equals(writeRecordsJson(input)), input.preset);
  }
});

test('identical inputs give byte-identical JSON in a worker thread', async (t) => {
  for (const input of INPUTS) {
    t.true((await inAnotherThread(input)).equals(writeRecordsJson(input)), input.preset);
  }
});

test('a run of k records is the prefix of every longer run with the same inputs', (t) => {
  for (const preset of PRESETS) {
    for (const profile of preset.supported_profiles) {
      const input = { preset: preset.name, profile, seed: 77, numInteractions: 2_500 };
      const long = generateRecords(input);
      for (const k of [1, 2, 39, 40, 41, 251, 252, 253, 1_000, 2_499]) {
        t.deepEqual(generateRecords({ ...input, numInteractions: k }), long.slice(0, k), `${profile} k=${k}`);
      }
      const longBytes = writeRecordsJson(input);
      const shortBytes = writeRecordsJson({ ...input, numInteractions: 1_000 });
      // Same bytes up to the short run's closing bracket, where the long run continues with a comma.
      t.true(shortBytes.subarray(0, -1).equals(longBytes.subarray(0, shortBytes.length - 1)), profile);
    }
  }
});

test('different seeds give different data', (t) => {
  for (const preset of PRESETS) {
    for (const profile of preset.supported_profiles) {
      const runs = [0, 1, 2, 4_294_967_295].map((seed) =>
        writeRecordsJson({ preset: preset.name, profile, seed, numInteractions: 50 }).toString(),
      );
      t.is(new Set(runs).size, runs.length, `${preset.name}/${profile}`);
      // Differences show from the start, not only far into the run (a mobile session always opens the
      // same way, so look at the first ten records).
      const firsts = [0, 1, 2, 3].map((seed) =>
        JSON.stringify(generateRecords({ preset: preset.name, profile, seed, numInteractions: 10 })),
      );
      t.is(new Set(firsts).size, firsts.length, `${preset.name}/${profile} first records`);
    }
  }
});

test('different profiles with the same seed give different data', (t) => {
  for (const preset of PRESETS) {
    const runs = preset.supported_profiles.map((profile) =>
      writeRecordsJson({ preset: preset.name, profile, seed: 5, numInteractions: 200 }).toString(),
    );
    t.is(new Set(runs).size, runs.length, preset.name);
  }
});

test('invalid inputs are refused rather than producing data', (t) => {
  const valid: SimulationInput = { preset: 'finance', profile: 'balanced_investor', seed: 1, numInteractions: 10 };
  const invalid: unknown[] = [
    { ...valid, preset: 'mobile' },
    { ...valid, preset: 'crypto' },
    { ...valid, preset: 'toString' },
    { ...valid, profile: 'average' },
    { ...valid, profile: 'constructor' },
    { ...valid, seed: -1 },
    { ...valid, seed: 4_294_967_296 },
    { ...valid, seed: 1.5 },
    { ...valid, seed: Number.NaN },
    { ...valid, numInteractions: 0 },
    { ...valid, numInteractions: 2.5 },
    { ...valid, numInteractions: Number.POSITIVE_INFINITY },
  ];
  for (const input of invalid) {
    t.throws(() => writeRecordsJson(input as SimulationInput), { instanceOf: RangeError }, JSON.stringify(input));
    t.throws(() => generateRecords(input as SimulationInput), { instanceOf: RangeError }, JSON.stringify(input));
  }
});
