import { clamp } from '../clamp.ts';
import { commonFields, decimalField, integerField } from '../fieldSpec.ts';
import type { Rng } from '../rng.ts';
import { SequenceCounter } from '../sequenceCounter.ts';
import type { PresetModel, Simulator } from '../simulator.ts';

// One interaction is one item (question) answered in an adaptive tutoring session; a sequence is one
// learner's session of EPISODE_ITEMS items. The state is the learner's cognitive-load regime.
const STATES = ['Optimal', 'Overload', 'Underload'];
export const OPTIMAL = 0;
export const OVERLOAD = 1;
export const UNDERLOAD = 2;
export const EPISODE_ITEMS = 40;

// Load regimes change gradually: a learner passes through Optimal between overload and boredom.
const TRANSITIONS: Readonly<Record<string, readonly string[]>> = {
  Optimal: ['Optimal', 'Overload', 'Underload'],
  Overload: ['Overload', 'Optimal'],
  Underload: ['Underload', 'Optimal'],
};

// cognitive_load bands per state (inclusive after rounding to 3 decimals); the state is the band the
// load falls in, so the two always agree.
export const LOAD_LOW = [0.35, 0.7, 0.05];
export const LOAD_WIDTH = [0.349, 0.28, 0.299];

// Item response model (3PL-like): P(correct) = GUESS + (1 - GUESS - slip) * logistic(1.7 (ability - b)),
// where b = (difficulty - 0.5) * DIFFICULTY_SPAN is the item's difficulty on the ability (logit) scale.
export const GUESS = 0.2;
export const DIFFICULTY_SPAN = 6;
// The tutor raises difficulty after correct answers and lowers it after errors, aiming at TARGET_CORRECT,
// but is pulled back toward the curriculum level, so stronger learners still answer more items correctly.
export const TARGET_CORRECT = 0.7;
export const ADAPT_RATE = 0.08;
export const CURRICULUM_LEVEL = 0.5;
export const CURRICULUM_PULL = 0.08;
export const ITEM_SPREAD = 0.06;

// Overload costs accuracy and time; Underload is fast but careless.
export const STATE_ABILITY_SHIFT = [0, -0.6, 0];
export const STATE_EXTRA_SLIP = [0, 0, 0.08];
export const STATE_LOG_TIME = [0, 0.3, -0.25];
export const LOG_TIME_SD = 0.35;

export interface EducationProfile {
  /** Mean ability on the logit scale; each session's learner varies around it. */
  readonly ability: number;
  /** Probability of a careless error on an item the learner knows. */
  readonly slip: number;
  /** Median response time on an item of curriculum difficulty, ms. */
  readonly medianTimeMs: number;
  /** Propensity to tip into Overload / Underload from Optimal. */
  readonly overloadProne: number;
  readonly underloadProne: number;
}

export const PROFILES: Readonly<Record<string, EducationProfile>> = {
  average: { ability: 0, slip: 0.08, medianTimeMs: 9000, overloadProne: 1, underloadProne: 1 },
  fast_accurate: { ability: 1.3, slip: 0.03, medianTimeMs: 5000, overloadProne: 0.7, underloadProne: 1.5 },
  fast_inaccurate: { ability: -0.8, slip: 0.15, medianTimeMs: 4200, overloadProne: 0.8, underloadProne: 1.6 },
  slow_accurate: { ability: 1.1, slip: 0.03, medianTimeMs: 15000, overloadProne: 0.9, underloadProne: 0.8 },
  slow_inaccurate: { ability: -1.2, slip: 0.1, medianTimeMs: 16000, overloadProne: 1.6, underloadProne: 0.6 },
};

export function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

class EducationSimulator implements Simulator {
  readonly values = new Float64Array(7);
  private readonly rng: Rng;
  private readonly profile: EducationProfile;
  private readonly sequence = new SequenceCounter(EPISODE_ITEMS);
  private state = OPTIMAL;
  private ability = 0;
  private logMedianTime = 0;
  /** The tutor's difficulty level for the next item, 0..1. */
  private level = CURRICULUM_LEVEL;

  constructor(profile: EducationProfile, rng: Rng) {
    this.profile = profile;
    this.rng = rng;
  }

  next(): void {
    const rng = this.rng;
    const p = this.profile;
    const sequence = this.sequence;
    const newSequence = sequence.begin();
    if (newSequence) {
      this.ability = p.ability + 0.35 * rng.nextNormal();
      this.logMedianTime = Math.log(p.medianTimeMs) + 0.15 * rng.nextNormal();
      this.level = CURRICULUM_LEVEL;
    }

    const milli = Math.round(clamp(this.level + ITEM_SPREAD * rng.nextNormal(), 0.01, 0.99) * 1000);
    const difficulty = milli / 1000;
    const b = (difficulty - 0.5) * DIFFICULTY_SPAN;
    // How hard this item is for this learner: 0 trivial, 1 far beyond them; fatigue adds up over a session.
    const challenge = clamp(logistic(1.7 * (b - this.ability)) + 0.004 * sequence.step, 0, 1);

    if (newSequence) {
      this.state = OPTIMAL;
    } else if (this.state === OPTIMAL) {
      const u = rng.nextFloat();
      const toOverload = (0.02 + 0.3 * challenge * challenge * challenge) * p.overloadProne;
      const rest = 1 - challenge;
      const toUnderload = (0.02 + 0.3 * rest * rest * rest) * p.underloadProne;
      this.state = u < toOverload ? OVERLOAD : u < toOverload + toUnderload ? UNDERLOAD : OPTIMAL;
    } else {
      const pressure = this.state === OVERLOAD ? 1 - challenge : challenge;
      if (rng.nextFloat() < 0.2 + 0.4 * pressure) this.state = OPTIMAL;
    }
    const state = this.state;

    const slip = p.slip + STATE_EXTRA_SLIP[state]!;
    const knows = logistic(1.7 * (this.ability + STATE_ABILITY_SHIFT[state]! - b));
    const correct = rng.nextFloat() < GUESS + (1 - GUESS - slip) * knows ? 1 : 0;

    // Log-normal time: harder items and overload take longer, errors a little longer still.
    const logTime =
      this.logMedianTime + 0.8 * (difficulty - 0.5) + STATE_LOG_TIME[state]! + (correct === 1 ? 0 : 0.1);
    const responseTimeMs = Math.max(150, Math.round(Math.exp(logTime + LOG_TIME_SD * rng.nextNormal())));

    const position = clamp(challenge + 0.15 * rng.nextNormal(), 0, 0.999);
    const load = Math.round((LOAD_LOW[state]! + LOAD_WIDTH[state]! * position) * 1000);

    this.level = clamp(
      this.level + ADAPT_RATE * (correct - TARGET_CORRECT) - CURRICULUM_PULL * (this.level - CURRICULUM_LEVEL),
      0.02,
      0.98,
    );

    const v = this.values;
    v[3] = responseTimeMs;
    v[4] = correct;
    v[5] = milli;
    v[6] = load;
    // No terminal state: a session ends after its items.
    sequence.finish(v, state, false);
  }
}

export const education: PresetModel = {
  name: 'education',
  description:
    'Learners in adaptive tutoring sessions: item difficulty adapts to answers, response times are ' +
    'log-normal, and cognitive load moves between optimal, overload and underload.',
  aliases: [],
  defaultProfile: 'average',
  profiles: ['average', 'fast_accurate', 'fast_inaccurate', 'slow_accurate', 'slow_inaccurate'],
  states: STATES,
  transitions: TRANSITIONS,
  startStates: Object.fromEntries(Object.keys(PROFILES).map((name) => [name, STATES[OPTIMAL]!])),
  episodeLength: EPISODE_ITEMS,
  fields: [
    ...commonFields(STATES),
    integerField('response_time_ms', 'Time to answer the item, milliseconds, integer > 0'),
    integerField('correct', '1 when the answer was correct, else 0'),
    decimalField('difficulty', 3, 'Difficulty of the item the adaptive tutor chose, 0 (easy) to 1 (hard), 3 decimals'),
    decimalField(
      'cognitive_load',
      3,
      'Estimated cognitive load, 0 to 1, 3 decimals: below 0.35 in Underload, 0.7 and above in Overload',
    ),
  ],
  createSimulator(profileName: string, rng: Rng): Simulator {
    const p = PROFILES[profileName];
    if (p === undefined) throw new RangeError(`unknown education profile: ${profileName}`);
    return new EducationSimulator(p, rng);
  },
};
