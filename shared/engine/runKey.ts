import { hashSeed } from './hashSeed.ts';
import type { RunInput } from './presetTypes.ts';

/**
 * A run's key, which every addressed draw starts from (shared/engine/counterRng.ts): the preset's name, or
 * an account model's digest, with the profile and the seed, and never n (the prefix rule).
 */
export const runKey = (input: RunInput): [number, number, number, number] =>
  hashSeed(input.model === undefined ? input.preset : input.model.digest, input.profile, input.seed);
