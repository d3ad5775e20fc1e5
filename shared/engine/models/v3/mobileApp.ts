import { scenarioEventField } from '../../fieldSpec.ts';
import type { ScenarioEventType } from '../../scenario.ts';
import type { PresetModel, RunContext, Simulator } from '../../simulator.ts';
import { ScenarioSimulator } from './ScenarioSimulator.ts';
import {
  APP_CLOSE,
  APP_OPEN,
  APP_UNINSTALL,
  AT_RISK,
  CHURNED,
  CRASH,
  CRASH_TO_AT_RISK,
  EPISODE_EVENTS,
  IDLE,
  IN_SESSION_EVENTS,
  mobileApp as mobileApp2,
  type MobileProfile,
  NOTIFICATION_OPEN,
  NOTIFICATION_SHARE,
  ONBOARDING,
  pick,
  PRICES,
  PROFILES,
  PURCHASE,
  SCREEN_VIEW,
  SESSION_PACE_MEAN_SHIFT,
  SESSION_PACE_SD,
  TUTORIAL_STEP,
} from '../v2/mobileApp.ts';

// Engine 3 keeps engine 2's sessions, lifecycle and revenue model and draws every number by user and event
// (CounterRng), so scenario events change only the users they target.
const OUTAGE = 0;
const PROMOTION = 1;
const CHURN_WAVE = 2;
// An outage (a bad release or a backend down): launches crash with probability OUTAGE_LAUNCH x intensity,
// in-session events with OUTAGE_IN_SESSION x intensity; crashes push users toward AtRisk as always.
const OUTAGE_LAUNCH = 0.7;
const OUTAGE_IN_SESSION = 0.5;
const MAX_CRASH_PROBABILITY = 0.97;
// A promotion (a sale): an in-session event is a purchase with probability PROMOTION_PURCHASE x intensity
// beside the usual ones.
const PROMOTION_PURCHASE = 0.08;
// A churn wave (a competitor's launch, a price rise): users end their sessions and step toward Churned
// at every session boundary with probability min(1, intensity).

const SCENARIO_EVENTS: readonly ScenarioEventType[] = [
  {
    type: 'outage',
    description:
      'A service outage or a crashing release: launches crash with probability 0.7 x intensity and in-app ' +
      'events with 0.5 x intensity, so sessions are cut short and crashed users slide toward AtRisk.',
    effect: 'share of crash = 1 at least 0.5; mean session_duration_s lower',
  },
  {
    type: 'promotion',
    description:
      'A sale or promotional campaign: each in-app event is also a purchase with probability 0.08 x intensity, ' +
      'at the usual price points.',
    effect: 'sum of revenue higher and share of paying records higher',
  },
  {
    type: 'churn_wave',
    description:
      'A churn wave (a competitor launch, a price rise): users close their sessions and step through AtRisk ' +
      'to Churned at each session boundary (probability min(1, intensity)), uninstalling the app.',
    effect: 'every targeted sequence reaches Churned within the window',
  },
];

class MobileAppSimulator extends ScenarioSimulator<MobileProfile> implements Simulator {
  readonly values = new Float64Array(9);
  private state = ONBOARDING;
  private sessionOver = false;
  private crashed = false;
  private elapsed = 0;
  private screens = 0;
  private pace = 1;

  constructor(profile: MobileProfile, run: RunContext) {
    super(profile, run, EPISODE_EVENTS, SCENARIO_EVENTS);
  }

  next(): void {
    const rng = this.rng;
    const sequence = this.sequence;
    const installed = sequence.begin();
    const id = sequence.sequenceId;
    const step = sequence.step;
    if (installed) {
      rng.subject(id);
      this.targeted = this.schedule.enter(id);
    }
    // Each of the event's draws has its slot, the same whatever happens in it.
    rng.at(step);

    const active = this.eventAt(step);
    const type = active < 0 ? -1 : this.schedule.types[active]!;
    const intensity = active < 0 ? 0 : this.schedule.intensities[active]!;
    const p = this.profile;
    const table = p.table;
    let event: number;
    let revenueCents = 0;
    let crash = 0;
    if (installed || this.sessionOver) {
      if (installed) {
        this.state = ONBOARDING;
      } else {
        const previous = this.state;
        let state = p.chain.next(previous, rng.uniform(0));
        if (this.crashed && state !== CHURNED && rng.uniform(1) < CRASH_TO_AT_RISK) state = AT_RISK;
        if (type === CHURN_WAVE && rng.uniform(8) < intensity) {
          // One published step toward Churned: Onboarding and AtRisk churn, Engaged and Idle fall to AtRisk.
          state = previous === ONBOARDING || previous === AT_RISK ? CHURNED : AT_RISK;
        }
        this.state = state;
      }
      if (this.state === CHURNED) {
        event = APP_UNINSTALL;
        this.elapsed = 0;
        this.screens = 0;
      } else if (type === OUTAGE && rng.uniform(3) < Math.min(MAX_CRASH_PROBABILITY, OUTAGE_LAUNCH * intensity)) {
        // The app crashes at launch: a session of one event.
        event = CRASH;
        crash = 1;
        this.sessionOver = true;
        this.crashed = true;
        this.elapsed = 0;
        this.screens = 0;
      } else {
        this.sessionOver = false;
        this.crashed = false;
        this.elapsed = 0;
        this.screens = 1;
        this.pace = Math.exp(SESSION_PACE_MEAN_SHIFT + SESSION_PACE_SD * rng.normal(6));
        const state = this.state;
        event = state >= IDLE && rng.uniform(7) < NOTIFICATION_SHARE[state]! ? NOTIFICATION_OPEN : APP_OPEN;
      }
    } else {
      const state = this.state;
      this.elapsed += rng.exponential(2, table.gapMean[state]! * this.pace);
      const uEvent = rng.uniform(3);
      const crashRate =
        type === OUTAGE ? Math.min(MAX_CRASH_PROBABILITY, p.crashRate + OUTAGE_IN_SESSION * intensity) : p.crashRate;
      if (uEvent < crashRate) {
        event = CRASH;
        crash = 1;
        this.sessionOver = true;
        this.crashed = true;
      } else if (type === CHURN_WAVE || uEvent < crashRate + table.endProbability[state]!) {
        event = APP_CLOSE;
        this.sessionOver = true;
      } else if (type === PROMOTION && rng.uniform(8) < PROMOTION_PURCHASE * intensity) {
        event = PURCHASE;
        revenueCents = PRICES[pick(table.priceCumulative, rng.uniform(5))]!;
      } else {
        event = IN_SESSION_EVENTS[pick(table.eventCumulative[state]!, rng.uniform(4))]!;
        if (event === SCREEN_VIEW || event === TUTORIAL_STEP) this.screens++;
        else if (event === PURCHASE) revenueCents = PRICES[pick(table.priceCumulative, rng.uniform(5))]!;
      }
    }

    const v = this.values;
    v[3] = event;
    v[4] = Math.round(this.elapsed * 10);
    v[5] = this.screens;
    v[6] = revenueCents;
    v[7] = crash;
    v[8] = type;
    sequence.finish(v, this.state, this.state === CHURNED);
  }
}

export const mobileApp: PresetModel = {
  ...mobileApp2,
  scenarioEvents: SCENARIO_EVENTS,
  fields: [...mobileApp2.fields, scenarioEventField(SCENARIO_EVENTS.map((e) => e.type))],
  createSimulator(profileName: string, _rng: unknown, run: RunContext): Simulator {
    const p = PROFILES[profileName];
    if (p === undefined) throw new RangeError(`unknown mobile_app profile: ${profileName}`);
    return new MobileAppSimulator(p, run);
  },
};
