import { fact, type FidelityFact, type PresetFacts, quote } from './fidelityFact.ts';
import { autocorrelationWithin, mean } from './statistics.ts';

// Physiological limits of an adult patient's vital signs, docs/decisions.md#fidelity (inclusive).
const BOUNDS: readonly [string, number, number][] = [
  ['heart_rate', 30, 220],
  ['systolic_bp', 60, 250],
  ['diastolic_bp', 30, 150],
  ['spo2', 50, 100],
  ['temperature_c', 33, 42.5],
];

export const healthcareFacts: PresetFacts = (samples) => {
  const facts: FidelityFact[] = [];
  for (const { profile, columns } of samples) {
    let outside = 0;
    for (const [name, low, high] of BOUNDS) {
      for (const x of columns.column(name)) if (x < low || x > high) outside++;
    }
    const systolic = columns.column('systolic_bp');
    const diastolic = columns.column('diastolic_bp');
    let inverted = 0;
    for (let i = 0; i < columns.length; i++) if (!(systolic[i]! > diastolic[i]!)) inverted++;
    const state = columns.column('state');
    const heartRate = columns.column('heart_rate');
    const spo2 = columns.column('spo2');
    const inState = (xs: Float64Array, name: string): number =>
      mean(xs.filter((_, i) => state[i] === columns.indexOf('state', name)));
    const criticalHeartRate = inState(heartRate, 'Critical');
    const stableHeartRate = inState(heartRate, 'Stable');
    const criticalSpo2 = inState(spo2, 'Critical');
    const stableSpo2 = inState(spo2, 'Stable');
    const heartRateMemory = autocorrelationWithin(heartRate, columns.column('sequence_id'), 1);
    facts.push(
      fact(
        'vitals_within_bounds',
        'Readings outside heart rate 30-220, systolic 60-250, diastolic 30-150, SpO2 50-100, temperature 33-42.5',
        profile,
        '= 0',
        outside,
        outside === 0,
      ),
      fact('systolic_above_diastolic', 'Records whose systolic_bp is not above diastolic_bp', profile, '= 0', inverted, inverted === 0),
      fact(
        'critical_heart_rate_higher',
        'Mean heart_rate in Critical, against Stable',
        profile,
        `> ${quote(stableHeartRate)}`,
        criticalHeartRate,
        criticalHeartRate > stableHeartRate,
      ),
      fact(
        'critical_spo2_lower',
        'Mean spo2 in Critical, against Stable',
        profile,
        `< ${quote(stableSpo2)}`,
        criticalSpo2,
        criticalSpo2 < stableSpo2,
      ),
      fact(
        'heart_rate_autocorrelated',
        'Lag-1 autocorrelation of heart_rate within a sequence',
        profile,
        '≥ 0.5',
        heartRateMemory,
        heartRateMemory >= 0.5,
      ),
    );
  }
  return facts;
};
