import { clamp } from '../../clamp.ts';
import { scenarioEventField } from '../../fieldSpec.ts';
import type { ScenarioEventType } from '../../scenario.ts';
import type { PresetModel, RunContext, Simulator } from '../../simulator.ts';
import { ScenarioSimulator } from './ScenarioSimulator.ts';
import {
  ADAPT_RATE,
  CURRICULUM_LEVEL,
  CURRICULUM_PULL,
  DIFFICULTY_SPAN,
  education as education1,
  type EducationProfile,
  EPISODE_ITEMS,
  GUESS,
  ITEM_SPREAD,
  LOAD_LOW,
  LOAD_WIDTH,
  LOG_TIME_SD,
  logistic,
  OPTIMAL,
  OVERLOAD,
  PROFILES,
  STATE_ABILITY_SHIFT,
  STATE_EXTRA_SLIP,
  STATE_LOG_TIME,
  TARGET_CORRECT,
  UNDERLOAD,
} from '../education.ts';

// Engine 3 keeps engine 1's learner, tutor and item-response model (it holds every education fact) and
// draws every number by learner and item (CounterRng), so scenario events change only what they target.
const FATIGUE = 0;
const DIFFICULTY_SPIKE = 1;
const MASTERY_JUMP = 2;
// Fatigue (vigilance decrement: Ackerman 2011, "Cognitive fatigue"): slower answers, less accuracy, more
// overload. Log-time shift log(1 + 0.5 x intensity), ability shift.
const FATIGUE_TIME = 0.5;
const FATIGUE_ABILITY = -0.8;
const FATIGUE_OVERLOAD = 0.25;
// A difficulty spike: the curriculum jumps ahead (a new topic) by DIFFICULTY_SPIKE_SHIFT x intensity.
const DIFFICULTY_SPIKE_SHIFT = 0.25;
// A mastery jump (an "aha" insight: the skill suddenly clicks) raises ability by MASTERY_ABILITY x intensity.
const MASTERY_ABILITY = 1.2;

const SCENARIO_EVENTS: readonly ScenarioEventType[] = [
  {
    type: 'fatigue',
    description:
      'Mental fatigue late in a session (a vigilance decrement): answers slow by 1 + 0.5 x intensity, accuracy ' +
      'drops as if ability fell 0.8 x intensity logits, and the learner tips into Overload more often.',
    effect: 'mean response_time_ms at least 1.3 x higher and the share correct lower',
  },
  {
    type: 'difficulty_spike',
    description:
      'The curriculum jumps ahead (a new, harder topic): item difficulty rises by 0.25 x intensity, so more ' +
      'errors, longer answers and more overload follow from the item-response model.',
    effect: 'mean difficulty higher and the share correct lower',
  },
  {
    type: 'mastery_jump',
    description:
      'The skill clicks (an insight): ability rises by 1.2 x intensity logits while it lasts, so answers ' +
      'are more often correct and items feel easier (lower cognitive load).',
    effect: 'the share correct higher and mean cognitive_load lower',
  },
];

class EducationSimulator extends ScenarioSimulator<EducationProfile> implements Simulator {
  readonly values = new Float64Array(8);
  private state = OPTIMAL;
  private ability = 0;
  private logMedianTime = 0;
  private level = CURRICULUM_LEVEL;

  constructor(profile: EducationProfile, run: RunContext) {
    super(profile, run, EPISODE_ITEMS, SCENARIO_EVENTS);
  }

  next(): void {
    const rng = this.rng;
    const p = this.profile;
    const sequence = this.sequence;
    const newSequence = sequence.begin();
    const id = sequence.sequenceId;
    const step = sequence.step;
    if (newSequence) {
      rng.subject(id);
      rng.at(0);
      this.ability = p.ability + 0.35 * rng.normal(0);
      this.logMedianTime = Math.log(p.medianTimeMs) + 0.15 * rng.normal(1);
      this.level = CURRICULUM_LEVEL;
      this.targeted = this.schedule.enter(id);
    }
    rng.at(step);
    const itemNoise = rng.normal(0);
    const uState = rng.uniform(1);
    const uCorrect = rng.uniform(2);
    const timeNoise = rng.normal(3);
    const loadNoise = rng.normal(4);

    const event = this.eventAt(step);
    const type = event < 0 ? -1 : this.schedule.types[event]!;
    const intensity = event < 0 ? 0 : this.schedule.intensities[event]!;
    const abilityShift = type === FATIGUE ? FATIGUE_ABILITY * intensity : type === MASTERY_JUMP ? MASTERY_ABILITY * intensity : 0;
    const ability = this.ability + abilityShift;
    const levelShift = type === DIFFICULTY_SPIKE ? DIFFICULTY_SPIKE_SHIFT * intensity : 0;

    const milli = Math.round(clamp(this.level + levelShift + ITEM_SPREAD * itemNoise, 0.01, 0.99) * 1000);
    const difficulty = milli / 1000;
    const b = (difficulty - 0.5) * DIFFICULTY_SPAN;
    const challenge = clamp(logistic(1.7 * (b - ability)) + 0.004 * step, 0, 1);

    if (newSequence) {
      this.state = OPTIMAL;
    } else if (this.state === OPTIMAL) {
      const toOverload =
        (0.02 + 0.3 * challenge * challenge * challenge) * p.overloadProne + (type === FATIGUE ? FATIGUE_OVERLOAD * intensity : 0);
      const rest = 1 - challenge;
      const toUnderload = (0.02 + 0.3 * rest * rest * rest) * p.underloadProne;
      this.state = uState < toOverload ? OVERLOAD : uState < toOverload + toUnderload ? UNDERLOAD : OPTIMAL;
    } else {
      const pressure = this.state === OVERLOAD ? 1 - challenge : challenge;
      if (uState < 0.2 + 0.4 * pressure) this.state = OPTIMAL;
    }
    const state = this.state;

    const slip = p.slip + STATE_EXTRA_SLIP[state]!;
    const knows = logistic(1.7 * (ability + STATE_ABILITY_SHIFT[state]! - b));
    const correct = uCorrect < GUESS + (1 - GUESS - slip) * knows ? 1 : 0;
    const fatigueTime = type === FATIGUE ? Math.log(1 + FATIGUE_TIME * intensity) : 0;
    const logTime =
      this.logMedianTime + 0.8 * (difficulty - 0.5) + STATE_LOG_TIME[state]! + (correct === 1 ? 0 : 0.1) + fatigueTime;
    const responseTimeMs = Math.max(150, Math.round(Math.exp(logTime + LOG_TIME_SD * timeNoise)));
    const position = clamp(challenge + 0.15 * loadNoise, 0, 0.999);
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
    v[7] = type;
    sequence.finish(v, state, false);
  }
}

export const education: PresetModel = {
  ...education1,
  scenarioEvents: SCENARIO_EVENTS,
  fields: [...education1.fields, scenarioEventField(SCENARIO_EVENTS.map((e) => e.type))],
  createSimulator(profileName: string, _rng: unknown, run: RunContext): Simulator {
    const p = PROFILES[profileName];
    if (p === undefined) throw new RangeError(`unknown education profile: ${profileName}`);
    return new EducationSimulator(p, run);
  },
};
