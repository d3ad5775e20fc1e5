import type { PresetName } from '../presetTypes.ts';
import { PRESETS } from '../presets.ts';
import { educationFacts } from './educationFacts.ts';
import type { FidelityFact, PresetFacts } from './fidelityFact.ts';
import { financeFacts } from './financeFacts.ts';
import { healthcareFacts } from './healthcareFacts.ts';
import { mobileAppFacts } from './mobileAppFacts.ts';
import { sampleColumns } from './sampleColumns.ts';
import { financeCalibratedFacts } from './financeCalibratedFacts.ts';
import { healthcareCalibratedFacts } from './healthcareCalibratedFacts.ts';
import { scenarioFacts } from './scenarioFacts.ts';
import { engineModels } from '../engineVersions.ts';
import { CLOCK_FACTS } from './clockFacts.ts';

/** GET /v1/presets/{preset}/fidelity. */
export interface FidelityReport {
  readonly preset: PresetName;
  readonly service_version: string;
  readonly sample: readonly { readonly profile: string; readonly seed: number; readonly num_interactions: number }[];
  readonly facts: readonly FidelityFact[];
}

/** docs/decisions.md#fidelity: at least 100,000 interactions per profile, fixed seeds. */
export const FIDELITY_INTERACTIONS = 100_000;
const FIDELITY_SEED = 20_261_116;

const PRESET_FACTS: Readonly<Record<PresetName, PresetFacts>> = {
  education: educationFacts,
  finance: financeFacts,
  healthcare: healthcareFacts,
  mobile_app: mobileAppFacts,
};

const CALIBRATED_FACTS: Partial<Record<PresetName, PresetFacts>> = {
  finance: financeCalibratedFacts,
  healthcare: healthcareCalibratedFacts,
};

/** Measures a preset's stylized facts on one fixed-seed sample per profile of the given engine version. */
export function measureFidelity(preset: PresetName, serviceVersion: string): FidelityReport {
  const definition = PRESETS.find((p) => p.name === preset)!;
  const sample = definition.supported_profiles.map((profile) => ({
    profile,
    seed: FIDELITY_SEED,
    num_interactions: FIDELITY_INTERACTIONS,
  }));
  const samples = sample.map(({ profile, seed, num_interactions }) => ({
    profile,
    seed,
    num_interactions,
    columns: sampleColumns({ preset, profile, seed, numInteractions: num_interactions, serviceVersion }),
  }));
  const facts = PRESET_FACTS[preset](samples);
  // Engine 3 on (the engines that play scenarios): the calibrated facts, then one per event type.
  if (engineModels(serviceVersion)?.[preset].scenarioEvents !== undefined) {
    facts.push(...(CALIBRATED_FACTS[preset]?.(samples) ?? []), ...scenarioFacts(preset, serviceVersion, samples));
  }
  // Engine 4 on: the clock's facts.
  if (engineModels(serviceVersion)?.[preset].timed === true) facts.push(...CLOCK_FACTS[preset](samples));
  return { preset, service_version: serviceVersion, sample, facts };
}
