import { clamp } from '../../clamp.ts';
import { integerField, scenarioEventField } from '../../fieldSpec.ts';
import type { ScenarioEventType } from '../../scenario.ts';
import type { PresetModel, RunContext, Simulator } from '../../simulator.ts';
import { ScenarioSimulator } from './ScenarioSimulator.ts';
import {
  CLOSED,
  finance as finance2,
  type FinanceProfile,
  JUMP_DOWN_SHARE,
  JUMP_SCALE,
  JUMP_THRESHOLD,
  MAX_ABS_RETURN,
  MAX_CENTS,
  MEAN_ABS_NORMAL,
  PROFILES,
  START_STATE,
  STATE_DRIFT,
  STATE_VOLATILITY,
  STATES,
} from '../v2/finance.ts';

// Engine 3 keeps engine 2's regimes, profiles and published transitions, draws every number by account and
// day (CounterRng), and calibrates volatility clustering to the slow, power-law-like decay of Cont (2001)
// and Ding, Granger & Engle (1993): the log-volatility is a sum of components with a week, a quarter and
// several years of memory (a cascade, as in HAR and multifractal models: Corsi 2009, Calvet & Fisher 2004),
// each driven by the EGARCH news-impact curve with a leverage term (Nelson 1991).
const EPISODE_DAYS = 756;
const FAST_MEMORY = 0.7;
const FAST_RESPONSE = 0.22;
const MEDIUM_MEMORY = 0.97;
const MEDIUM_RESPONSE = 0.045;
const SLOW_MEMORY = 0.998;
const SLOW_RESPONSE = 0.02;
const LEVERAGE = 0.5;
// Accounts open in calm and in nervous markets alike: the slow component starts anywhere in its range.
const SLOW_COMPONENT_SD = 0.45;
const MAX_LOG_VOLATILITY = 0.8;
// Days differ in how much news they carry (the mixture-of-distributions hypothesis, Clark 1973): on
// NEWS_DAY_SHARE of days the diffusive move is NEWS_DAY_SCALE x larger, the others a little calmer, so
// daily returns are fat-tailed beyond what volatility clustering gives while a month's sum, which averages
// over many days, is not (aggregational gaussianity).
const NEWS_DAY_SHARE = 0.05;
const NEWS_DAY_SCALE = 1.8;
const QUIET_DAY_SCALE = Math.sqrt((1 - NEWS_DAY_SHARE * NEWS_DAY_SCALE * NEWS_DAY_SCALE) / (1 - NEWS_DAY_SHARE));
// A risk system's volatility estimate, recomputable from the published returns: RiskMetrics' EWMA
// (J.P. Morgan 1996, lambda 0.94); risk_alert is also set when it reaches VOLATILITY_ALERT x the profile's
// daily volatility (a VaR-limit breach).
const EWMA_LAMBDA = 0.94;
const VOLATILITY_ALERT = 2.5;

const MARKET_CRASH = 0;
const VOLATILITY_REGIME = 1;
const RALLY = 2;
const DRAWDOWN = STATES.indexOf('Drawdown');
const VOLATILE = STATES.indexOf('Volatile');
const RECOVERED = STATES.indexOf('Recovered');
const ACTIVE = STATES.indexOf('Active');
// A crash takes CRASH_DROP x intensity of the value: at most CRASH_FIRST_DAY on its first day, the rest
// CRASH_LATER_DAY a day after (1987 fell 20% in a day; 2008 and 2020 over several days).
const CRASH_DROP = 0.2;
const CRASH_FIRST_DAY = 0.22;
const CRASH_LATER_DAY = 0.06;
// ...with a volatility burst on the day and the month components, which then decays as any shock does.
const CRASH_FAST_BURST = 0.9;
const CRASH_MEDIUM_BURST = 0.5;
// A volatility regime multiplies volatility by 1 + VOLATILITY_SCALE x intensity while it lasts.
const VOLATILITY_SCALE = 1.5;
// A rally adds RALLY_GAIN x intensity, spread over its first RALLY_DAYS days, with calmer markets.
const RALLY_GAIN = 0.14;
const RALLY_DAYS = 10;
const RALLY_VOLATILITY = 0.8;

const SCENARIO_EVENTS: readonly ScenarioEventType[] = [
  {
    type: 'market_crash',
    description:
      'A market crash: a sudden fall of about 20% x intensity (up to 22% on its first day, the rest over the ' +
      'next days), a volatility burst that decays over weeks and feeds on further losses (leverage), and the ' +
      'account pushed into Drawdown.',
    effect: 'sum of daily_return over the window at least 0.15 x intensity lower; risk_alert set on most records',
  },
  {
    type: 'volatility_regime',
    description:
      'A turbulent market regime: daily volatility multiplied by 1 + 1.5 x intensity while it lasts, the ' +
      'account in Volatile.',
    effect: 'standard deviation of daily_return at least 2 x higher',
  },
  {
    type: 'rally',
    description:
      'A broad rally: about +14% x intensity spread over its first 10 days with calmer volatility, a ' +
      'Drawdown turning into Recovered.',
    effect: 'sum of daily_return over the window at least 0.10 x intensity higher',
  },
];

class FinanceSimulator extends ScenarioSimulator<FinanceProfile> implements Simulator {
  readonly values = new Float64Array(7);
  private state = START_STATE;
  private cents = 0;
  private peakCents = 0;
  private fast = 0;
  private medium = 0;
  private slow = 0;
  private ewmaVariance = 0;
  /** What is left of a crash's fall, and a rally's daily gain with the days it lasts. */
  private crashLeft = 0;
  private rallyDaily = 0;
  private rallyDaysLeft = 0;

  constructor(profile: FinanceProfile, run: RunContext) {
    super(profile, run, EPISODE_DAYS, SCENARIO_EVENTS);
  }

  next(): void {
    const rng = this.rng;
    const p = this.profile;
    const sequence = this.sequence;
    const opened = sequence.begin();
    const id = sequence.sequenceId;
    const step = sequence.step;
    if (opened) {
      // The account's own draws, at step 0: its deposit and the market it opens in.
      rng.subject(id);
      rng.at(0);
      const deposit = clamp(p.startValueMedian * Math.exp(0.9 * rng.normal(0)), 500, 5_000_000);
      this.cents = Math.round(deposit * 100);
      this.peakCents = 0;
      this.fast = 0;
      this.medium = 0;
      this.slow = SLOW_COMPONENT_SD * rng.normal(1);
      this.ewmaVariance = p.baseVolatility * p.baseVolatility;
      this.crashLeft = 0;
      this.rallyDaysLeft = 0;
      this.targeted = this.schedule.enter(id);
      this.state = START_STATE;
    }
    // Each of the day's draws has its slot, the same whatever its regime or event.
    rng.at(step);
    const uState = rng.uniform(0);
    const z = rng.normal(1);
    const previous = this.state;
    if (!opened) this.state = p.chain.next(previous, uState);

    const event = this.eventAt(step);
    const type = event < 0 ? -1 : this.schedule.types[event]!;
    const intensity = event < 0 ? 0 : this.schedule.intensities[event]!;
    const starts = event >= 0 && step === this.schedule.startOf(event);
    let volatilityScale = 1;
    let extra = 0;
    let jumpsDown = true;
    if (type === MARKET_CRASH) {
      if (starts) {
        this.crashLeft = CRASH_DROP * intensity;
        this.fast += CRASH_FAST_BURST * intensity;
        this.medium += CRASH_MEDIUM_BURST * intensity;
      }
      const fall = Math.min(this.crashLeft, starts ? CRASH_FIRST_DAY : CRASH_LATER_DAY);
      this.crashLeft -= fall;
      extra = -fall;
      // Not on the account's first day: a sequence starts in Stable.
      // Overrides follow the published transitions from the previous day's state (Recovered cannot fall
      // straight into Drawdown).
      if (!opened && this.state !== CLOSED) this.state = previous === RECOVERED ? VOLATILE : DRAWDOWN;
    } else if (type === VOLATILITY_REGIME) {
      volatilityScale = 1 + VOLATILITY_SCALE * intensity;
      if (!opened && this.state !== CLOSED) this.state = VOLATILE;
    } else if (type === RALLY) {
      if (starts) {
        const days = Math.min(RALLY_DAYS, this.schedule.lastStepOf(event) - step + 1);
        this.rallyDaily = (RALLY_GAIN * intensity) / days;
        this.rallyDaysLeft = days;
      }
      if (this.rallyDaysLeft > 0) {
        this.rallyDaysLeft--;
        extra = this.rallyDaily;
      }
      volatilityScale = RALLY_VOLATILITY;
      jumpsDown = false;
      if (!opened && this.state !== CLOSED) {
        if (previous === DRAWDOWN) this.state = RECOVERED;
        else if (this.state === DRAWDOWN || this.state === VOLATILE) this.state = ACTIVE;
      }
    }
    const state = this.state;

    const logVolatility = clamp(this.fast + this.medium + this.slow, -MAX_LOG_VOLATILITY, MAX_LOG_VOLATILITY);
    const volatility = p.baseVolatility * STATE_VOLATILITY[state]! * Math.exp(logVolatility) * volatilityScale;
    const dayScale = rng.uniform(5) < NEWS_DAY_SHARE ? NEWS_DAY_SCALE : QUIET_DAY_SCALE;
    let r = p.driftScale * STATE_DRIFT[state]! + volatility * dayScale * z + extra;
    if (rng.uint32(2) < JUMP_THRESHOLD[state]!) {
      const down = rng.uniform(3) < JUMP_DOWN_SHARE;
      const size = JUMP_SCALE * Math.abs(rng.normal(4));
      if (down ? jumpsDown : true) r += volatility * (down ? -size : size);
    }
    // The news-impact curve on the day's diffusive surprise (gaps and event moves stay out of it, as in
    // engine 2; a crash's burst is added above instead).
    const news = Math.abs(z) - MEAN_ABS_NORMAL - LEVERAGE * z;
    this.fast = FAST_MEMORY * this.fast + FAST_RESPONSE * news;
    this.medium = MEDIUM_MEMORY * this.medium + MEDIUM_RESPONSE * news;
    this.slow = SLOW_MEMORY * this.slow + SLOW_RESPONSE * news;
    const micros = Math.round(clamp(r, -MAX_ABS_RETURN, MAX_ABS_RETURN) * 1e6);
    const dailyReturn = micros / 1e6;
    const cents = clamp(Math.round(this.cents * (1 + dailyReturn)), 1, MAX_CENTS);
    this.cents = cents;
    if (cents > this.peakCents) this.peakCents = cents;
    const drawdown = 1 - cents / this.peakCents;
    this.ewmaVariance = EWMA_LAMBDA * this.ewmaVariance + (1 - EWMA_LAMBDA) * dailyReturn * dailyReturn;
    const limit = VOLATILITY_ALERT * p.baseVolatility;
    const alert =
      drawdown >= p.drawdownAlert || Math.abs(dailyReturn) >= p.moveAlert || this.ewmaVariance >= limit * limit ? 1 : 0;

    const v = this.values;
    v[3] = cents;
    v[4] = micros;
    v[5] = alert;
    v[6] = type;
    sequence.finish(v, state, state === CLOSED);
  }
}

// Engine 2's catalog entry with engine 3's episode, risk_alert rule and scenario events.
export const finance: PresetModel = {
  ...finance2,
  episodeLength: EPISODE_DAYS,
  scenarioEvents: SCENARIO_EVENTS,
  fields: [
    ...finance2.fields.map((field) =>
      field.name === 'risk_alert'
        ? integerField(
            'risk_alert',
            "1 when the drawdown from the sequence's peak, the day's move, or the EWMA volatility of returns (lambda 0.94) exceeds the profile's risk limits, else 0",
          )
        : field,
    ),
    scenarioEventField(SCENARIO_EVENTS.map((e) => e.type)),
  ],
  createSimulator(profileName: string, _rng: unknown, run: RunContext): Simulator {
    const p = PROFILES[profileName];
    if (p === undefined) throw new RangeError(`unknown finance profile: ${profileName}`);
    return new FinanceSimulator(p, run);
  },
};
