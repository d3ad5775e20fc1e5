import { fact, type FidelityFact, type PresetFacts } from './fidelityFact.ts';
import { autocorrelationWithin, correlation, excessKurtosis, skewness } from './statistics.ts';

const AGGREGATION_DAYS = 20;
const LEVERAGE_HORIZON = 5;

/** Sums of non-overlapping AGGREGATION_DAYS-day blocks, each inside one account's sequence. */
function aggregatedReturns(returns: Float64Array, sequence: Float64Array): Float64Array {
  const sums: number[] = [];
  let start = 0;
  while (start + AGGREGATION_DAYS <= returns.length) {
    if (sequence[start] !== sequence[start + AGGREGATION_DAYS - 1]) {
      // Restart at the next sequence's first day.
      while (sequence[start] === sequence[start + 1]) start++;
      start++;
      continue;
    }
    let sum = 0;
    for (let k = 0; k < AGGREGATION_DAYS; k++) sum += returns[start + k]!;
    sums.push(sum);
    start += AGGREGATION_DAYS;
  }
  return Float64Array.from(sums);
}

/** r(t) against |r(t+1)| + ... + |r(t+5)|, for the days whose next five lie in the same sequence. */
function leverageCorrelation(returns: Float64Array, sequence: Float64Array): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let t = 0; t + LEVERAGE_HORIZON < returns.length; t++) {
    if (sequence[t] !== sequence[t + LEVERAGE_HORIZON]) continue;
    let future = 0;
    for (let k = 1; k <= LEVERAGE_HORIZON; k++) future += Math.abs(returns[t + k]!);
    xs.push(returns[t]!);
    ys.push(future);
  }
  return correlation(xs, ys);
}

// The stylized facts of daily asset returns, Cont (2001), thresholds of docs/decisions.md#fidelity.
export const financeFacts: PresetFacts = (samples) => {
  const facts: FidelityFact[] = [];
  for (const { profile, columns } of samples) {
    const returns = columns.column('daily_return');
    const sequence = columns.column('sequence_id');
    const absolute = returns.map(Math.abs);
    const kurtosis = excessKurtosis(returns);
    const lag1 = autocorrelationWithin(returns, sequence, 1);
    const abs1 = autocorrelationWithin(absolute, sequence, 1);
    const abs20 = autocorrelationWithin(absolute, sequence, 20);
    const abs50 = autocorrelationWithin(absolute, sequence, 50);
    const leverage = leverageCorrelation(returns, sequence);
    const aggregatedKurtosis = excessKurtosis(aggregatedReturns(returns, sequence));
    const skew = skewness(returns);
    facts.push(
      fact('heavy_tails', 'Excess kurtosis of daily_return', profile, '≥ 3', kurtosis, kurtosis >= 3),
      fact('no_linear_autocorrelation', 'Absolute lag-1 autocorrelation of daily_return', profile, '≤ 0.05', Math.abs(lag1), Math.abs(lag1) <= 0.05),
      fact('volatility_clustering_lag_1', 'Autocorrelation of |daily_return| at lag 1', profile, '≥ 0.1', abs1, abs1 >= 0.1),
      fact('volatility_clustering_lag_20', 'Autocorrelation of |daily_return| at lag 20 (slow decay)', profile, '≥ 0.05', abs20, abs20 >= 0.05),
      fact('volatility_clustering_lag_50', 'Autocorrelation of |daily_return| at lag 50 (long memory)', profile, '> 0', abs50, abs50 > 0),
      fact(
        'leverage_effect',
        'Correlation of daily_return with the sum of |daily_return| over the next 5 days',
        profile,
        '< 0',
        leverage,
        leverage < 0,
      ),
      fact(
        'aggregational_gaussianity',
        `Excess kurtosis of non-overlapping ${AGGREGATION_DAYS}-day return sums, as a fraction of the daily one`,
        profile,
        '≤ 0.5',
        aggregatedKurtosis / kurtosis,
        aggregatedKurtosis <= 0.5 * kurtosis,
      ),
      fact('gain_loss_asymmetry', 'Skewness of daily_return', profile, '< 0', skew, skew < 0),
    );
  }
  return facts;
};
