import { disorderRng, isDuplicated } from './EnvelopeStream.ts';
import type { StreamInput } from './StreamInput.ts';

/**
 * How many envelopes a stream delivers: its records plus their second deliveries. Duplication is drawn
 * by interaction_id alone, so this needs no engine run: one hash per record.
 */
export const countStreamEvents = (input: Pick<StreamInput, 'preset' | 'model' | 'profile' | 'seed' | 'numInteractions' | 'disorder'>): number => {
  const share = input.disorder.duplicate_share;
  if (share === 0) return input.numInteractions;
  const rng = disorderRng(input);
  let total = input.numInteractions;
  for (let id = 1; id <= input.numInteractions; id++) {
    if (isDuplicated(rng, id, share)) total += 1;
  }
  return total;
};
