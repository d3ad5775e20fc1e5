import { generateRecords } from '../../../shared/engine/index.ts';
import type { PresetName, SimulationRecord } from '../../../shared/engine/index.ts';

const cache = new Map<string, SimulationRecord[]>();

/** A large fixed-seed sample per preset and profile, generated once per test file. */
export function sampleRecords(preset: PresetName, profile: string, n = 20_000, seed = 20_240_601): SimulationRecord[] {
  const key = `${preset}/${profile}/${n}/${seed}`;
  let records = cache.get(key);
  if (records === undefined) {
    records = generateRecords({ preset, profile, seed, numInteractions: n });
    cache.set(key, records);
  }
  return records;
}

/** Records split into their sequences, in order. */
export function sequencesOf(records: readonly SimulationRecord[]): SimulationRecord[][] {
  const sequences: SimulationRecord[][] = [];
  let previous: unknown;
  for (const record of records) {
    if (record.sequence_id !== previous) sequences.push([]);
    sequences[sequences.length - 1]!.push(record);
    previous = record.sequence_id;
  }
  return sequences;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function standardDeviation(xs: readonly number[]): number {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
}

export function stateShare(records: readonly SimulationRecord[], state: string): number {
  return records.filter((r) => r.state === state).length / records.length;
}
