// `node bench/bodySizes.ts [format] [preset] [profile]`: the size of a 1,000,000-record run's body,
// uncoded and in zstd as the service codes it (api/bulk/encodeBody.ts), for docs/bulk-data.md.
import { encodeBody } from '../api/bulk/encodeBody.ts';
import { PRESETS, type TextFormat, writeRecordChunks } from '../shared/engine/index.ts';
import type { PresetName } from '../shared/engine/presetTypes.ts';

const format = (process.argv[2] ?? 'ndjson') as TextFormat;
const preset = (process.argv[3] ?? 'finance') as PresetName;
const profile = process.argv[4] ?? PRESETS.find((each) => each.name === preset)?.default_profile ?? '';
const MILLION = 1_000_000;

let raw = 0;
function* records(): Generator<Buffer> {
  for (const chunk of writeRecordChunks({ preset, profile, seed: 42, numInteractions: MILLION }, format)) {
    raw += chunk.length;
    yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  }
}
let coded = 0;
for await (const chunk of encodeBody(records(), 'zstd')) {
  coded += chunk.length;
}
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
console.log(`${preset}/${profile} ${format}, ${MILLION} records: ${raw} bytes (${mib(raw)} MiB) uncoded, ${coded} bytes (${mib(coded)} MiB) in zstd, ${(raw / coded).toFixed(1)} x smaller`);
