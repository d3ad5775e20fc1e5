import { commonFields, decimalField, enumField, integerField } from '../../fieldSpec.ts';
import { MarkovChain } from '../../markovChain.ts';
import type { TransitionRows } from '../../markovChain.ts';
import type { Rng } from '../../rng.ts';
import { SequenceCounter } from '../../sequenceCounter.ts';
import type { PresetModel, Simulator } from '../../simulator.ts';

// One interaction is one analytics event of one user; a sequence is that user's life from install until
// Churned (the uninstall) or EPISODE_EVENTS events. Events come in sessions: an open, in-app events, then a
// close or a crash. The lifecycle state changes only between sessions.
const STATES = ['Onboarding', 'Engaged', 'Idle', 'AtRisk', 'Churned'];
export const ONBOARDING = 0;
export const IDLE = 2;
export const AT_RISK = 3;
export const CHURNED = 4;
export const EPISODE_EVENTS = 1000;

const TRANSITIONS: Readonly<Record<string, readonly string[]>> = {
  Onboarding: ['Onboarding', 'Engaged', 'Idle', 'AtRisk', 'Churned'],
  // A crash can tip any user into AtRisk; otherwise engagement decays through Idle.
  Engaged: ['Engaged', 'Idle', 'AtRisk'],
  Idle: ['Idle', 'Engaged', 'AtRisk'],
  AtRisk: ['AtRisk', 'Engaged', 'Idle', 'Churned'],
  Churned: [],
};

const EVENTS = [
  'app_open',
  'notification_open',
  'screen_view',
  'tutorial_step',
  'search',
  'add_to_cart',
  'purchase',
  'share',
  'app_close',
  'crash',
  'app_uninstall',
];
export const APP_OPEN = EVENTS.indexOf('app_open');
export const NOTIFICATION_OPEN = EVENTS.indexOf('notification_open');
export const SCREEN_VIEW = EVENTS.indexOf('screen_view');
export const TUTORIAL_STEP = EVENTS.indexOf('tutorial_step');
export const PURCHASE = EVENTS.indexOf('purchase');
export const APP_CLOSE = EVENTS.indexOf('app_close');
export const CRASH = EVENTS.indexOf('crash');
export const APP_UNINSTALL = EVENTS.indexOf('app_uninstall');

// What happens inside a session, with relative weights per state (rows: Onboarding, Engaged, Idle,
// AtRisk): tutorials only while onboarding, more searching, carting and sharing when engaged.
export const IN_SESSION_EVENTS = ['screen_view', 'tutorial_step', 'search', 'add_to_cart', 'purchase', 'share'].map(
  (name) => EVENTS.indexOf(name),
);
const EVENT_WEIGHTS = [
  [0.35, 0.45, 0.08, 0.05, 0.02, 0.05],
  [0.55, 0, 0.18, 0.12, 0.06, 0.09],
  [0.7, 0, 0.15, 0.08, 0.03, 0.04],
  [0.75, 0, 0.12, 0.08, 0.02, 0.03],
];
// Session length (events) and pace (seconds between events) by state, as multipliers of the profile's.
const STATE_SESSION_EVENTS = [1.2, 1.3, 0.7, 0.5];
const STATE_EVENT_GAP = [1.3, 1, 0.9, 0.8];
// Lapsing users mostly come back through a push notification.
export const NOTIFICATION_SHARE = [0, 0.1, 0.4, 0.6];
// After a crashed session, this share of users slides to AtRisk whatever their state.
export const CRASH_TO_AT_RISK = 0.35;
// Sessions vary far more than a constant pace allows: each session's pace (seconds between events) is
// log-normal around the state's mean, so a few long sessions make session time heavy-tailed, as app
// analytics show (session lengths are log-normal-like, a long right tail).
export const SESSION_PACE_SD = 0.8;
export const SESSION_PACE_MEAN_SHIFT = -(SESSION_PACE_SD * SESSION_PACE_SD) / 2;
// In-app purchase price points, cents.
export const PRICES = [99, 199, 299, 499, 999, 1999, 4999];

interface MobileSettings {
  /** Mean events per session (before the state's multiplier). */
  readonly sessionEvents: number;
  /** Mean seconds between events (before the state's multiplier). */
  readonly eventGapS: number;
  /** Probability that any in-session event is a crash. */
  readonly crashRate: number;
  readonly purchaseFactor: number;
  /** Relative weights of the PRICES points. */
  readonly priceWeights: readonly number[];
}

export interface MobileProfile {
  readonly crashRate: number;
  readonly table: SessionTable;
  readonly chain: MarkovChain;
}

/** Per profile and state: P(end of session), mean gap, cumulative in-session event weights. */
interface SessionTable {
  readonly endProbability: Float64Array;
  readonly gapMean: Float64Array;
  readonly eventCumulative: Float64Array[];
  readonly priceCumulative: Float64Array;
}

function cumulative(weights: readonly number[]): Float64Array {
  const total = weights.reduce((a, b) => a + b, 0);
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w / total;
    out[i] = sum;
  });
  // Absorb rounding dust: a draw just below 1 lands on the last entry with non-zero weight.
  let last = weights.length - 1;
  while (last > 0 && weights[last] === 0) last--;
  out[last] = 2;
  return out;
}

export function pick(table: Float64Array, u: number): number {
  let k = 0;
  while (u >= table[k]!) k++;
  return k;
}

function sessionTable(p: MobileSettings): SessionTable {
  return {
    endProbability: Float64Array.from(STATE_SESSION_EVENTS, (m) => 1 / (p.sessionEvents * m)),
    gapMean: Float64Array.from(STATE_EVENT_GAP, (m) => p.eventGapS * m),
    eventCumulative: EVENT_WEIGHTS.map((weights) =>
      cumulative(weights.map((w, i) => (IN_SESSION_EVENTS[i] === PURCHASE ? w * p.purchaseFactor : w))),
    ),
    priceCumulative: cumulative(p.priceWeights),
  };
}

function profile(settings: MobileSettings, rows: TransitionRows): MobileProfile {
  return {
    crashRate: settings.crashRate,
    table: sessionTable(settings),
    chain: new MarkovChain(STATES, TRANSITIONS, rows),
  };
}

// Transition rows are per session.
export const PROFILES: Readonly<Record<string, MobileProfile>> = {
  casual_user: profile(
    { sessionEvents: 8, eventGapS: 12, crashRate: 0.004, purchaseFactor: 1, priceWeights: [35, 25, 15, 15, 7, 3, 0] },
    {
      Onboarding: { Onboarding: 0.35, Engaged: 0.35, Idle: 0.22, AtRisk: 0.05, Churned: 0.03 },
      Engaged: { Engaged: 0.8, Idle: 0.17, AtRisk: 0.03 },
      Idle: { Idle: 0.6, Engaged: 0.28, AtRisk: 0.12 },
      AtRisk: { AtRisk: 0.45, Engaged: 0.1, Idle: 0.25, Churned: 0.2 },
    },
  ),
  power_user: profile(
    { sessionEvents: 20, eventGapS: 20, crashRate: 0.003, purchaseFactor: 1.8, priceWeights: [15, 15, 15, 20, 20, 10, 5] },
    {
      Onboarding: { Onboarding: 0.25, Engaged: 0.65, Idle: 0.06, AtRisk: 0.02, Churned: 0.02 },
      Engaged: { Engaged: 0.9, Idle: 0.07, AtRisk: 0.03 },
      Idle: { Idle: 0.4, Engaged: 0.48, AtRisk: 0.12 },
      AtRisk: { AtRisk: 0.3, Engaged: 0.3, Idle: 0.1, Churned: 0.3 },
    },
  ),
  new_user: profile(
    { sessionEvents: 10, eventGapS: 15, crashRate: 0.006, purchaseFactor: 0.7, priceWeights: [40, 25, 15, 10, 6, 3, 1] },
    {
      Onboarding: { Onboarding: 0.6, Engaged: 0.18, Idle: 0.12, AtRisk: 0.05, Churned: 0.05 },
      Engaged: { Engaged: 0.75, Idle: 0.2, AtRisk: 0.05 },
      Idle: { Idle: 0.55, Engaged: 0.25, AtRisk: 0.2 },
      AtRisk: { AtRisk: 0.45, Engaged: 0.1, Idle: 0.2, Churned: 0.25 },
    },
  ),
  churn_risk: profile(
    { sessionEvents: 5, eventGapS: 9, crashRate: 0.012, purchaseFactor: 0.5, priceWeights: [55, 22, 10, 7, 3, 3, 0] },
    {
      Onboarding: { Onboarding: 0.3, Engaged: 0.15, Idle: 0.25, AtRisk: 0.2, Churned: 0.1 },
      Engaged: { Engaged: 0.55, Idle: 0.3, AtRisk: 0.15 },
      Idle: { Idle: 0.45, Engaged: 0.1, AtRisk: 0.45 },
      AtRisk: { AtRisk: 0.45, Engaged: 0.05, Idle: 0.1, Churned: 0.4 },
    },
  ),
};

class MobileAppSimulator implements Simulator {
  readonly values = new Float64Array(8);
  private readonly rng: Rng;
  private readonly profile: MobileProfile;
  private readonly sequence = new SequenceCounter(EPISODE_EVENTS);
  private state = ONBOARDING;
  private sessionOver = false;
  private crashed = false;
  /** Seconds since the session opened, and screens seen in it. */
  private elapsed = 0;
  private screens = 0;
  /** This session's pace, a multiple of the state's mean gap between events (mean 1). */
  private pace = 1;

  constructor(profile: MobileProfile, rng: Rng) {
    this.profile = profile;
    this.rng = rng;
  }

  next(): void {
    const rng = this.rng;
    let event: number;
    let revenueCents = 0;
    let crash = 0;
    if (this.sequence.begin()) {
      this.state = ONBOARDING;
      event = this.openSession();
    } else if (this.sessionOver) {
      let state = this.profile.chain.next(this.state, rng.nextFloat());
      if (this.crashed && state !== CHURNED && rng.nextFloat() < CRASH_TO_AT_RISK) state = AT_RISK;
      this.state = state;
      if (state === CHURNED) {
        event = APP_UNINSTALL;
        this.elapsed = 0;
        this.screens = 0;
      } else {
        event = this.openSession();
      }
    } else {
      const state = this.state;
      const table = this.profile.table;
      this.elapsed += rng.nextExponential(table.gapMean[state]! * this.pace);
      const u = rng.nextFloat();
      const crashRate = this.profile.crashRate;
      if (u < crashRate) {
        event = CRASH;
        crash = 1;
        this.sessionOver = true;
        this.crashed = true;
      } else if (u < crashRate + table.endProbability[state]!) {
        event = APP_CLOSE;
        this.sessionOver = true;
      } else {
        event = IN_SESSION_EVENTS[pick(table.eventCumulative[state]!, rng.nextFloat())]!;
        if (event === SCREEN_VIEW || event === TUTORIAL_STEP) this.screens++;
        else if (event === PURCHASE) revenueCents = PRICES[pick(table.priceCumulative, rng.nextFloat())]!;
      }
    }

    const v = this.values;
    v[3] = event;
    v[4] = Math.round(this.elapsed * 10);
    v[5] = this.screens;
    v[6] = revenueCents;
    v[7] = crash;
    // Only the uninstall above enters Churned, and it ends the sequence.
    this.sequence.finish(v, this.state, this.state === CHURNED);
  }

  /** Starts a session in the current state; returns its opening event. */
  private openSession(): number {
    this.sessionOver = false;
    this.crashed = false;
    this.elapsed = 0;
    // The opening screen counts as viewed.
    this.screens = 1;
    this.pace = Math.exp(SESSION_PACE_MEAN_SHIFT + SESSION_PACE_SD * this.rng.nextNormal());
    const state = this.state;
    return state >= IDLE && this.rng.nextFloat() < NOTIFICATION_SHARE[state]! ? NOTIFICATION_OPEN : APP_OPEN;
  }
}

export const mobileApp: PresetModel = {
  name: 'mobile_app',
  description:
    'Mobile app users from install to churn: sessions of analytics events with durations, screens, ' +
    'in-app purchases and crashes, as users move between engagement stages.',
  aliases: ['mobile'],
  defaultProfile: 'casual_user',
  profiles: ['casual_user', 'power_user', 'new_user', 'churn_risk'],
  states: STATES,
  transitions: TRANSITIONS,
  startStates: Object.fromEntries(Object.keys(PROFILES).map((name) => [name, STATES[ONBOARDING]!])),
  episodeLength: EPISODE_EVENTS,
  fields: [
    ...commonFields(STATES),
    enumField('event', EVENTS, `Analytics event: ${EVENTS.join(', ')}`),
    decimalField('session_duration_s', 1, 'Seconds since the current session opened, 1 decimal (0 at the open)'),
    integerField('screens_viewed', 'Screens viewed so far in the current session'),
    decimalField('revenue', 2, 'Revenue of this event in currency units, 2 decimals, > 0 only on purchase'),
    integerField('crash', '1 when this event is an app crash (which ends the session), else 0'),
  ],
  createSimulator(profileName: string, rng: Rng): Simulator {
    const p = PROFILES[profileName];
    if (p === undefined) throw new RangeError(`unknown mobile_app profile: ${profileName}`);
    return new MobileAppSimulator(p, rng);
  },
};
