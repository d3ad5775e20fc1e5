// The engine's public surface: pure and deterministic (no I/O, no clock, no Math.random).
export { ENGINE_VERSION } from './engineVersion.ts';
export { resolveEngineVersion } from './engineVersions.ts';
export { generateRecords } from './generateRecords.ts';
export { PRESETS } from './presets.ts';
export { PRESET_NAMES } from './presetTypes.ts';
export type {
  PresetDefinition,
  PresetName,
  RecordField,
  RunInput,
  ModelSimulationInput,
  SimulationInput,
  SimulationRecord,
} from './presetTypes.ts';
export { resolvePreset } from './resolvePreset.ts';
export { writeRecordsJson } from './writeRecordsJson.ts';
export { OUTPUT_FORMATS, type OutputFormat, type TextFormat } from './outputFormat.ts';
export { CHUNK_BYTES, estimateRecordBytes, writeRecordChunks } from './writeRecordChunks.ts';
