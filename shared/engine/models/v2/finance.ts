import { clamp } from '../../clamp.ts';
import { commonFields, decimalField, integerField } from '../../fieldSpec.ts';
import { MarkovChain } from '../../markovChain.ts';
import type { TransitionRows } from '../../markovChain.ts';
import type { Rng } from '../../rng.ts';
import { SequenceCounter } from '../../sequenceCounter.ts';
import type { PresetModel, Simulator } from '../../simulator.ts';

// One interaction is one trading day of one investor's account; a sequence is the account from opening
// until it is Closed or a trading year has passed.
export const STATES = ['Stable', 'Active', 'Volatile', 'Drawdown', 'Recovered', 'Closed'];
export const CLOSED = 5;
export const START_STATE = 0;
const EPISODE_DAYS = 252;

const TRANSITIONS: Readonly<Record<string, readonly string[]>> = {
  Stable: ['Stable', 'Active', 'Volatile', 'Drawdown', 'Closed'],
  Active: ['Active', 'Stable', 'Volatile', 'Drawdown', 'Closed'],
  Volatile: ['Volatile', 'Stable', 'Active', 'Drawdown', 'Closed'],
  // Recovered is only entered from Drawdown: it is the rebound after a loss, not a calm market.
  Drawdown: ['Drawdown', 'Volatile', 'Recovered', 'Closed'],
  Recovered: ['Recovered', 'Stable', 'Active', 'Volatile', 'Closed'],
  Closed: [],
};

// Per state: multiplier of the profile's daily volatility, and drift per trading day before the profile's
// drift scale. Drawdown bleeds, Recovered rebounds, Volatile is wide and slightly negative. Drifts are small
// beside the volatility, so regimes do not make returns linearly predictable.
export const STATE_VOLATILITY = [1.0, 1.25, 1.6, 1.4, 1.1, 1.0];
export const STATE_DRIFT = [0.0003, 0.0002, -0.0004, -0.0008, 0.0008, 0];
// Volatility with long memory and a leverage effect: the log of the volatility is the sum of three
// components (a day, a month and a year of memory, as in multi-component GARCH: Engle & Lee 1999, Corsi
// 2009), each moved by the day's shock through an EGARCH news-impact curve (Nelson 1991):
// |z| - E|z| - LEVERAGE z, so a loss raises the coming days' volatility more than a gain of the same size.
const FAST_MEMORY = 0.55;
const FAST_RESPONSE = 0.12;
const MEDIUM_MEMORY = 0.93;
const MEDIUM_RESPONSE = 0.04;
const SLOW_MEMORY = 0.993;
const SLOW_RESPONSE = 0.02;
const LEVERAGE = 0.4;
export const MEAN_ABS_NORMAL = Math.sqrt(2 / Math.PI);
// Standard deviation of the yearly component around its mean, drawn for each new account, so accounts
// open in calm and in nervous markets alike instead of all starting calm (and |returns| stay correlated
// across months within an account).
const SLOW_COMPONENT_SD = 0.35;
// Volatility stays within a factor of two of its level: unbounded feedback would let a rare turbulent
// month dominate the monthly returns' tails, against aggregational gaussianity.
const MAX_LOG_VOLATILITY = 0.7;
// Gap moves: rare jumps on top of the diffusive noise, more often down than up (crashes are sudden,
// rallies gradual: gain/loss asymmetry).
const JUMP_PROBABILITY = [0.01, 0.012, 0.025, 0.025, 0.01, 0];
// The same test on the raw 32-bit draw (u < p exactly when u * 2^32 < p * 2^32), without a division.
export const JUMP_THRESHOLD = Float64Array.from(JUMP_PROBABILITY, (p) => p * 4294967296);
export const JUMP_SCALE = 3;
export const JUMP_DOWN_SHARE = 0.75;
// A day never moves more than this, so value stays positive and plausible.
export const MAX_ABS_RETURN = 0.3;
// Keeps cents below 2^53 / 100 with room to spare, where "round to cents, then print" is exact.
export const MAX_CENTS = 1e15;

export interface FinanceProfile {
  /** Median opening deposit, currency units; deposits are log-normal around it. */
  readonly startValueMedian: number;
  /** Daily standard deviation of returns in the Stable regime. */
  readonly baseVolatility: number;
  readonly driftScale: number;
  /** risk_alert when the value is this far below the sequence's peak... */
  readonly drawdownAlert: number;
  /** ...or when the day's move is at least this large. */
  readonly moveAlert: number;
  readonly chain: MarkovChain;
}

function profile(
  startValueMedian: number,
  baseVolatility: number,
  driftScale: number,
  drawdownAlert: number,
  moveAlert: number,
  rows: TransitionRows,
): FinanceProfile {
  const chain = new MarkovChain(STATES, TRANSITIONS, rows);
  return { startValueMedian, baseVolatility, driftScale, drawdownAlert, moveAlert, chain };
}

// Risk appetite orders the profiles: volatility, drift and alert limits all rise from conservative to
// active_trader, and active traders switch into (and stay in) Active trading far more than the others.
export const PROFILES: Readonly<Record<string, FinanceProfile>> = {
  conservative_investor: profile(150_000, 0.003, 0.6, 0.06, 0.015, {
    Stable: { Stable: 0.955, Active: 0.02, Volatile: 0.02, Drawdown: 0.003, Closed: 0.002 },
    Active: { Active: 0.78, Stable: 0.18, Volatile: 0.025, Drawdown: 0.01, Closed: 0.005 },
    Volatile: { Volatile: 0.78, Stable: 0.14, Active: 0.02, Drawdown: 0.05, Closed: 0.01 },
    Drawdown: { Drawdown: 0.78, Volatile: 0.03, Recovered: 0.16, Closed: 0.03 },
    Recovered: { Recovered: 0.8, Stable: 0.17, Active: 0.015, Volatile: 0.01, Closed: 0.005 },
  }),
  balanced_investor: profile(60_000, 0.006, 1.0, 0.1, 0.025, {
    Stable: { Stable: 0.935, Active: 0.04, Volatile: 0.02, Drawdown: 0.003, Closed: 0.002 },
    Active: { Active: 0.82, Stable: 0.12, Volatile: 0.045, Drawdown: 0.01, Closed: 0.005 },
    Volatile: { Volatile: 0.8, Stable: 0.09, Active: 0.045, Drawdown: 0.06, Closed: 0.005 },
    Drawdown: { Drawdown: 0.8, Volatile: 0.04, Recovered: 0.14, Closed: 0.02 },
    Recovered: { Recovered: 0.8, Stable: 0.14, Active: 0.04, Volatile: 0.015, Closed: 0.005 },
  }),
  growth_investor: profile(35_000, 0.009, 1.4, 0.18, 0.045, {
    Stable: { Stable: 0.915, Active: 0.06, Volatile: 0.02, Drawdown: 0.003, Closed: 0.002 },
    Active: { Active: 0.85, Stable: 0.095, Volatile: 0.04, Drawdown: 0.011, Closed: 0.004 },
    Volatile: { Volatile: 0.8, Stable: 0.1, Active: 0.055, Drawdown: 0.04, Closed: 0.005 },
    Drawdown: { Drawdown: 0.8, Volatile: 0.05, Recovered: 0.14, Closed: 0.01 },
    Recovered: { Recovered: 0.78, Stable: 0.1, Active: 0.09, Volatile: 0.025, Closed: 0.005 },
  }),
  active_trader: profile(20_000, 0.012, 1.2, 0.25, 0.07, {
    Stable: { Stable: 0.7, Active: 0.26, Volatile: 0.03, Drawdown: 0.007, Closed: 0.003 },
    Active: { Active: 0.905, Stable: 0.04, Volatile: 0.04, Drawdown: 0.012, Closed: 0.003 },
    Volatile: { Volatile: 0.75, Stable: 0.04, Active: 0.14, Drawdown: 0.06, Closed: 0.01 },
    Drawdown: { Drawdown: 0.78, Volatile: 0.05, Recovered: 0.14, Closed: 0.03 },
    Recovered: { Recovered: 0.6, Stable: 0.05, Active: 0.3, Volatile: 0.04, Closed: 0.01 },
  }),
};

class FinanceSimulator implements Simulator {
  readonly values = new Float64Array(6);
  private readonly rng: Rng;
  private readonly profile: FinanceProfile;
  private readonly sequence = new SequenceCounter(EPISODE_DAYS);
  private state = START_STATE;
  private cents = 0;
  private peakCents = 0;
  /** The three log-volatility components (day, month, year of memory). */
  private fast = 0;
  private medium = 0;
  private slow = 0;

  constructor(profile: FinanceProfile, rng: Rng) {
    this.profile = profile;
    this.rng = rng;
  }

  next(): void {
    const rng = this.rng;
    const p = this.profile;
    if (this.sequence.begin()) {
      this.state = START_STATE;
      const deposit = clamp(p.startValueMedian * Math.exp(0.9 * rng.nextNormal()), 500, 5_000_000);
      this.cents = Math.round(deposit * 100);
      // The peak is over published values only, so anyone can recompute drawdowns from the records.
      this.peakCents = 0;
      this.fast = 0;
      this.medium = 0;
      this.slow = SLOW_COMPONENT_SD * rng.nextNormal();
    } else {
      this.state = p.chain.next(this.state, rng.nextFloat());
    }
    const state = this.state;

    const logVolatility = clamp(this.fast + this.medium + this.slow, -MAX_LOG_VOLATILITY, MAX_LOG_VOLATILITY);
    const volatility = p.baseVolatility * STATE_VOLATILITY[state]! * Math.exp(logVolatility);
    const z = rng.nextNormal();
    let r = p.driftScale * STATE_DRIFT[state]! + volatility * z;
    if (rng.nextUint32() < JUMP_THRESHOLD[state]!) {
      const size = JUMP_SCALE * Math.abs(rng.nextNormal());
      r += volatility * (rng.nextFloat() < JUMP_DOWN_SHARE ? -size : size);
    }
    // The news-impact curve on the day's diffusive surprise, more weight on losses. Gaps stay out of it:
    // fed back, one crash would lift volatility for months and keep monthly returns as fat-tailed as
    // daily ones, against aggregational gaussianity.
    const news = Math.abs(z) - MEAN_ABS_NORMAL - LEVERAGE * z;
    this.fast = FAST_MEMORY * this.fast + FAST_RESPONSE * news;
    this.medium = MEDIUM_MEMORY * this.medium + MEDIUM_RESPONSE * news;
    this.slow = SLOW_MEMORY * this.slow + SLOW_RESPONSE * news;
    // The published return is the rounded one, and the value compounds exactly that return.
    const micros = Math.round(clamp(r, -MAX_ABS_RETURN, MAX_ABS_RETURN) * 1e6);
    const dailyReturn = micros / 1e6;
    const cents = clamp(Math.round(this.cents * (1 + dailyReturn)), 1, MAX_CENTS);
    this.cents = cents;
    if (cents > this.peakCents) this.peakCents = cents;
    const drawdown = 1 - cents / this.peakCents;
    const alert = drawdown >= p.drawdownAlert || Math.abs(dailyReturn) >= p.moveAlert ? 1 : 0;

    const v = this.values;
    v[3] = cents;
    v[4] = micros;
    v[5] = alert;
    this.sequence.finish(v, state, state === CLOSED);
  }
}

export const finance: PresetModel = {
  name: 'finance',
  description:
    'Investor portfolios over trading days: market regimes drive daily returns that compound into the ' +
    'portfolio value, with risk alerts on deep drawdowns and outsized moves.',
  aliases: [],
  defaultProfile: 'balanced_investor',
  profiles: ['conservative_investor', 'balanced_investor', 'growth_investor', 'active_trader'],
  states: STATES,
  transitions: TRANSITIONS,
  startStates: Object.fromEntries(Object.keys(PROFILES).map((name) => [name, STATES[START_STATE]!])),
  episodeLength: EPISODE_DAYS,
  fields: [
    ...commonFields(STATES),
    decimalField('portfolio_value', 2, 'Portfolio value at the close of the trading day, currency units, 2 decimals, > 0'),
    decimalField('daily_return', 6, 'Fractional return of the day (0.01 is +1%), 6 decimals; portfolio_value compounds it'),
    integerField(
      'risk_alert',
      "1 when the drawdown from the sequence's peak or the day's move exceeds the profile's risk limits, else 0",
    ),
  ],
  createSimulator(profileName: string, rng: Rng): Simulator {
    const p = PROFILES[profileName];
    if (p === undefined) throw new RangeError(`unknown finance profile: ${profileName}`);
    return new FinanceSimulator(p, rng);
  },
};
