import type { SampleColumns } from './sampleColumns.ts';

/** One stylized fact measured on one profile's sample (GET /v1/presets/{preset}/fidelity). */
export interface FidelityFact {
  readonly name: string;
  readonly description: string;
  readonly profile: string;
  /** The threshold as docs/decisions.md#fidelity states it, e.g. "≥ 3" or "> 0.0123 (casual_user)". */
  readonly target: string;
  /** The measured value, to 4 significant digits. */
  readonly value: number;
  readonly holds: boolean;
}

interface ProfileSample {
  readonly profile: string;
  readonly columns: SampleColumns;
}

/** A preset's facts, measured on one sample per profile (cross-profile facts compare samples). */
export type PresetFacts = (samples: readonly ProfileSample[]) => FidelityFact[];

/** Rounds for publication; `holds` is decided on the unrounded value by the caller. */
export function fact(name: string, description: string, profile: string, target: string, value: number, holds: boolean): FidelityFact {
  return { name, description, profile, target, value: Number(value.toPrecision(4)), holds };
}

/** Formats a value quoted inside a target, like the published values. */
export function quote(value: number): string {
  return String(Number(value.toPrecision(4)));
}
