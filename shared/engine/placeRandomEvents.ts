import type { CounterRng } from './counterRng.ts';
import type { RandomEvents } from './scenario.ts';

/** One random event of a sequence, before it is checked against the listed ones. */
export interface RandomPlacement {
  /** Index into `random.types`. */
  readonly type: number;
  readonly at_step: number;
  readonly duration: number;
  readonly intensity: number;
}

// Slots of a sequence's step-0 draws: 0 is the count's, then four per event.
const COUNT_SLOT = 0;
const SLOTS_PER_EVENT = 4;

const integerIn = (u: number, min: number, max: number): number => min + Math.floor(u * (max - min + 1));

/**
 * A sequence's random events, from draws addressed by the sequence alone (never by n, nor by the model's
 * own draws: `rng` is the schedule's, keyed apart from the model's), so the prefix rule and the matched
 * counterfactuals hold. The count is floor(per_sequence), plus one with probability its fraction; each event
 * gets a type, a duration and an intensity within the ranges; then the events are spread uniformly over the
 * room the horizon leaves once every event and its gap have their place (stars and bars: sorted offsets in
 * the slack), so none overlaps another, each has min_gap clean steps before it, and the last ends by the
 * horizon. randomEventsRoom guarantees the slack is never negative.
 */
export function placeRandomEvents(rng: CounterRng, random: RandomEvents, sequence: number, horizon: number): RandomPlacement[] {
  rng.subject(sequence);
  rng.at(0);
  const whole = Math.floor(random.per_sequence);
  const count = whole + (rng.uniform(COUNT_SLOT) < random.per_sequence - whole ? 1 : 0);
  if (count === 0) return [];
  const gap = random.min_gap;
  const [dMin = 1, dMax = dMin] = random.duration;
  const [iMin = 1, iMax = iMin] = random.intensity;
  const drawn: { type: number; duration: number; intensity: number; offset: number }[] = [];
  let used = 0;
  for (let i = 0; i < count; i++) {
    const slot = COUNT_SLOT + 1 + i * SLOTS_PER_EVENT;
    const type = integerIn(rng.uniform(slot), 0, random.types.length - 1);
    const duration = integerIn(rng.uniform(slot + 1), dMin, dMax);
    // Hundredths, kept within the range (a range narrower than a hundredth keeps its own bounds).
    const raw = iMin + rng.uniform(slot + 2) * (iMax - iMin);
    const intensity = Math.min(iMax, Math.max(iMin, Math.round(raw * 100) / 100));
    drawn.push({ type, duration, intensity, offset: rng.uniform(slot + 3) });
    used += duration + gap;
  }
  const slack = horizon - used;
  const offsets = drawn.map((event) => integerIn(event.offset, 0, slack)).sort((a, b) => a - b);
  const placed: RandomPlacement[] = [];
  let start = 1 + gap;
  drawn.forEach((event, i) => {
    placed.push({ type: event.type, at_step: start + offsets[i]!, duration: event.duration, intensity: event.intensity });
    start += event.duration + gap;
  });
  return placed;
}
