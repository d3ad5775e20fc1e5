import { createHash } from 'node:crypto';
import test from 'ava';
import { PRESETS } from '../../shared/engine/index.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';

// SHA-256 of writeParquetChunks for fixed inputs: a run's Parquet bytes never change within an engine
// version (resumed downloads and history replays compare them, docs/bulk-data.md#what-the-file-holds),
// whatever is changed in how they are written (shared/parquet/createRowGroupWriter.ts). Recorded before
// the row group writer replaced ParquetWriter.write.
const presetOf = (name: string) => PRESETS.find((preset) => preset.name === name)!;
const scenarioOf = (name: string) => ({
  events: presetOf(name).scenario_events.map(({ type }, k) => ({ type, sequence: k === 0 ? ('all' as const) : k + 1, at_step: 2 + 3 * k, duration: 7, intensity: 1 + k / 2 })),
});
const run = (preset: string, seed: number, numInteractions: number, serviceVersion: string, extra: object = {}) => ({
  preset,
  profile: presetOf(preset).default_profile,
  seed,
  numInteractions,
  serviceVersion,
  ...extra,
});

const GOLDEN: [string, object, number, number, string][] = [
  ['engine 4, finance, two row groups and a part', run('finance', 82_345, 70_000, '4.0.0'), 256 * 1024, 2_264_948, '0c327b8243e83ec6ced55f994dab2caf70bfe12acebbf35c15b51cb4119282f2'],
  ['engine 4, finance with a scenario', run('finance', 99, 80_000, '4.0.0', { scenario: scenarioOf('finance') }), 256 * 1024, 2_590_741, 'a26f3f9da6d527ffbaf97efac832818eb86c6f45c6082b954951d50ff1d9b7e7'],
  ['engine 4, mobile_app in time order', run('mobile_app', 7, 80_000, '4.0.0', { order: 'time', population: 500 }), 256 * 1024, 1_701_258, '39af698581402e1841b2a66ea8f7a34f81ea5d7dbbb35519b36857787b609840'],
  ['engine 3, healthcare with a scenario', run('healthcare', 99, 80_000, '3.0.0', { scenario: scenarioOf('healthcare') }), 256 * 1024, 1_606_574, 'c6492a7894db2d56e0720c7157748fabab617bb2fa982e51a351dc1567a78c90'],
  ['engine 1, education in one chunk', run('education', 12_602, 257, '1.0.0'), Number.POSITIVE_INFINITY, 9_740, '8161b28a567bf6b1e5eff89941dbc23dbf7131918e16bcc3c84a9fa26c5a58a8'],
];

for (const [title, input, chunkBytes, bytes, digest] of GOLDEN) {
  test(`a run's Parquet bytes are those recorded: ${title}`, (t) => {
    const hash = createHash('sha256');
    let length = 0;
    for (const chunk of writeParquetChunks(input as Parameters<typeof writeParquetChunks>[0], { chunkBytes })) {
      hash.update(chunk);
      length += chunk.byteLength;
    }
    t.is(length, bytes);
    t.is(hash.digest('hex'), digest);
  });
}
