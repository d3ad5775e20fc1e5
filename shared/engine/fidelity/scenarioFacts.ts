import { createSimulation } from '../createSimulation.ts';
import type { PresetName } from '../presetTypes.ts';
import { fact, type FidelityFact } from './fidelityFact.ts';
import { type MatchedWindow, matchedWindows } from './matchedWindows.ts';
import { sampleColumns, type SampleColumns } from './sampleColumns.ts';

/** Where each preset's measured events sit in every sequence: steps its sequences reach in the samples. */
const WINDOWS: Readonly<Record<PresetName, { readonly at_step: number; readonly duration: number }>> = {
  education: { at_step: 10, duration: 20 },
  finance: { at_step: 30, duration: 20 },
  healthcare: { at_step: 3, duration: 10 },
  mobile_app: { at_step: 20, duration: 60 },
};

/** The columns of both runs and the matched windows of one event type. */
interface Pair {
  readonly control: SampleColumns;
  readonly treated: SampleColumns;
  readonly windows: readonly MatchedWindow[];
}

type Measure = (pair: Pair, profile: string) => FidelityFact[];

const valuesAt = (columns: SampleColumns, name: string, rows: readonly number[]): number[] => {
  const column = columns.column(name);
  return rows.map((i) => column[i]!);
};
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const average = (xs: readonly number[]): number => sum(xs) / xs.length;
const sd = (xs: readonly number[]): number => {
  const m = average(xs);
  return Math.sqrt(average(xs.map((x) => (x - m) ** 2)));
};
/** Pooled over every matched window: the scenario run's rows, then the control run's. */
const pooled = ({ treated, control, windows }: Pair, name: string): [number[], number[]] => [
  windows.flatMap((w) => valuesAt(treated, name, w.treated)),
  windows.flatMap((w) => valuesAt(control, name, w.control)),
];
const meanDifference = (pair: Pair, name: string): number => {
  const [t, c] = pooled(pair, name);
  return average(t) - average(c);
};
/** The mean over targeted sequences of (sum over the window with the event - without it). */
const sumDifference = ({ treated, control, windows }: Pair, name: string): number =>
  average(windows.map((w) => sum(valuesAt(treated, name, w.treated)) - sum(valuesAt(control, name, w.control))));
const windowShare = ({ treated, windows }: Pair, name: string, test: (x: number) => boolean): number => {
  const xs = windows.flatMap((w) => valuesAt(treated, name, w.window));
  return xs.filter(test).length / xs.length;
};
/** Share of targeted sequences whose window reaches a state. */
const reachedShare = ({ treated, windows }: Pair, state: string, minimum: number): number => {
  const index = treated.indexOf('state', state);
  const counted = windows.filter((w) => w.window.length >= minimum);
  return counted.filter((w) => valuesAt(treated, 'state', w.window).includes(index)).length / counted.length;
};

// Each event type's effect of docs/decisions.md#fidelity (intensity 1), measured on matched pairs.
const MEASURES: Readonly<Record<string, Measure>> = {
  market_crash: (pair, profile) => {
    const drop = sumDifference(pair, 'daily_return');
    const alerts = windowShare(pair, 'risk_alert', (x) => x === 1);
    return [
      fact('scenario_market_crash_return', 'Mean over targeted sequences of the window\'s sum of daily_return, with the event minus without', profile, '≤ -0.15', drop, drop <= -0.15),
      fact('scenario_market_crash_risk_alert', 'Share of the window\'s records with risk_alert = 1', profile, '> 0.5', alerts, alerts > 0.5),
    ];
  },
  volatility_regime: (pair, profile) => {
    const [t, c] = pooled(pair, 'daily_return');
    const ratio = sd(t) / sd(c);
    return [fact('scenario_volatility_regime_sd', 'Standard deviation of daily_return in the windows, with the event over without', profile, '≥ 2', ratio, ratio >= 2)];
  },
  rally: (pair, profile) => {
    const gain = sumDifference(pair, 'daily_return');
    return [fact('scenario_rally_return', 'Mean over targeted sequences of the window\'s sum of daily_return, with the event minus without', profile, '≥ 0.1', gain, gain >= 0.1)];
  },
  fatigue: (pair, profile) => {
    const [t, c] = pooled(pair, 'response_time_ms');
    const ratio = average(t) / average(c);
    const correct = meanDifference(pair, 'correct');
    return [
      fact('scenario_fatigue_response_time', 'Mean response_time_ms in the windows, with the event over without', profile, '≥ 1.3', ratio, ratio >= 1.3),
      fact('scenario_fatigue_correct', 'Share correct in the windows, with the event minus without', profile, '< 0', correct, correct < 0),
    ];
  },
  difficulty_spike: (pair, profile) => {
    const difficulty = meanDifference(pair, 'difficulty');
    const correct = meanDifference(pair, 'correct');
    return [
      fact('scenario_difficulty_spike_difficulty', 'Mean difficulty in the windows, with the event minus without', profile, '> 0', difficulty, difficulty > 0),
      fact('scenario_difficulty_spike_correct', 'Share correct in the windows, with the event minus without', profile, '< 0', correct, correct < 0),
    ];
  },
  mastery_jump: (pair, profile) => {
    const correct = meanDifference(pair, 'correct');
    const load = meanDifference(pair, 'cognitive_load');
    return [
      fact('scenario_mastery_jump_correct', 'Share correct in the windows, with the event minus without', profile, '> 0', correct, correct > 0),
      fact('scenario_mastery_jump_cognitive_load', 'Mean cognitive_load in the windows, with the event minus without', profile, '< 0', load, load < 0),
    ];
  },
  sepsis_onset: (pair, profile) => {
    const heartRate = meanDifference(pair, 'heart_rate');
    const spo2 = meanDifference(pair, 'spo2');
    const temperature = meanDifference(pair, 'temperature_c');
    // Stable -> Elevated -> Critical takes two rounds.
    const critical = reachedShare(pair, 'Critical', 2);
    return [
      fact('scenario_sepsis_onset_heart_rate', 'Mean heart_rate in the windows, with the event minus without', profile, '≥ 15', heartRate, heartRate >= 15),
      fact('scenario_sepsis_onset_spo2', 'Mean spo2 in the windows, with the event minus without', profile, '≤ -2', spo2, spo2 <= -2),
      fact('scenario_sepsis_onset_temperature', 'Mean temperature_c in the windows, with the event minus without', profile, '≥ 1', temperature, temperature >= 1),
      fact('scenario_sepsis_onset_critical', 'Share of targeted sequences (windows of 2 rounds or more) that reach Critical in the window', profile, '= 1', critical, critical === 1),
    ];
  },
  missed_medication: (pair, profile) => {
    const taken = windowShare(pair, 'medication_taken', (x) => x === 1);
    const systolic = meanDifference(pair, 'systolic_bp');
    return [
      fact('scenario_missed_medication_taken', 'Share of the window\'s records with medication_taken = 1', profile, '= 0', taken, taken === 0),
      fact('scenario_missed_medication_systolic', 'Mean systolic_bp in the windows, with the event minus without', profile, '> 0', systolic, systolic > 0),
    ];
  },
  hypoxia: (pair, profile) => {
    const spo2 = meanDifference(pair, 'spo2');
    const alerts = windowShare(pair, 'alert', (x) => x === 1);
    return [
      fact('scenario_hypoxia_spo2', 'Mean spo2 in the windows, with the event minus without', profile, '≤ -4', spo2, spo2 <= -4),
      fact('scenario_hypoxia_alert', 'Share of the window\'s records with alert = 1', profile, '> 0.5', alerts, alerts > 0.5),
    ];
  },
  outage: (pair, profile) => {
    const crashes = windowShare(pair, 'crash', (x) => x === 1);
    const duration = meanDifference(pair, 'session_duration_s');
    return [
      fact('scenario_outage_crash', 'Share of the window\'s records with crash = 1', profile, '≥ 0.5', crashes, crashes >= 0.5),
      fact('scenario_outage_session_duration', 'Mean session_duration_s in the windows, with the event minus without', profile, '< 0', duration, duration < 0),
    ];
  },
  promotion: (pair, profile) => {
    const revenue = sumDifference(pair, 'revenue');
    const [t, c] = pooled(pair, 'revenue');
    const paying = t.filter((x) => x > 0).length / t.length - c.filter((x) => x > 0).length / c.length;
    return [
      fact('scenario_promotion_revenue', 'Mean over targeted sequences of the window\'s sum of revenue, with the event minus without', profile, '> 0', revenue, revenue > 0),
      fact('scenario_promotion_paying', 'Share of paying records in the windows, with the event minus without', profile, '> 0', paying, paying > 0),
    ];
  },
  churn_wave: (pair, profile) => {
    const churned = reachedShare(pair, 'Churned', 1);
    return [fact('scenario_churn_wave_churned', 'Share of targeted sequences that reach Churned within the window', profile, '= 1', churned, churned === 1)];
  },
};

/** The sample a fact is measured on: a profile's fixed-seed run, as columns and as its inputs. */
interface ScenarioSample {
  readonly profile: string;
  readonly seed: number;
  readonly num_interactions: number;
  readonly columns: SampleColumns;
}

/**
 * One fact (or a few) per scenario event type of the engine, each measured on matched pairs: every
 * profile's fixed sample against the same run with the event on every sequence at the preset's window.
 */
export function scenarioFacts(preset: PresetName, serviceVersion: string, samples: readonly ScenarioSample[]): FidelityFact[] {
  const first = samples[0];
  if (first === undefined) return [];
  const { model } = createSimulation({ preset, profile: first.profile, seed: first.seed, numInteractions: 1, serviceVersion });
  const types = (model.scenarioEvents ?? []).map((e) => e.type);
  const facts: FidelityFact[] = [];
  types.forEach((type, index) => {
    const measure = MEASURES[type];
    if (measure === undefined) throw new Error(`no fidelity measure for scenario event ${type}`);
    for (const { profile, seed, num_interactions, columns } of samples) {
      const scenario = { events: [{ type, sequence: 'all' as const, ...WINDOWS[preset], intensity: 1 }] };
      const treated = sampleColumns({ preset, profile, seed, numInteractions: num_interactions, serviceVersion, scenario });
      const where = ` (matched pairs: the event on every sequence from step ${WINDOWS[preset].at_step} for ${WINDOWS[preset].duration} steps, intensity 1)`;
      for (const measured of measure({ control: columns, treated, windows: matchedWindows(columns, treated, index) }, profile)) {
        facts.push({ ...measured, description: measured.description + where });
      }
    }
  });
  return facts;
}

