import { fact, type FidelityFact, type PresetFacts } from './fidelityFact.ts';
import { autocorrelationWithin, correlation, excessKurtosis } from './statistics.ts';

const LEVERAGE_LAGS = 10;

/** corr(r(t), |r(t+k)|) over the days whose k-th successor lies in the same sequence. */
function leverageAt(returns: Float64Array, sequence: Float64Array, k: number): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let t = 0; t + k < returns.length; t++) {
    if (sequence[t] !== sequence[t + k]) continue;
    xs.push(returns[t]!);
    ys.push(Math.abs(returns[t + k]!));
  }
  return correlation(xs, ys);
}

/**
 * Engine 3's calibrated finance facts (docs/decisions.md#fidelity), beside engine 2's: the autocorrelation of
 * |returns| decays slowly, like a power law rather than an exponential (Ding, Granger & Engle 1993; Cont
 * 2001), the tails are heavy but finite, and every one of the next ten days' |returns| falls after a gain
 * (the leverage curve, Bouchaud, Matacz & Potters 2001).
 */
export const financeCalibratedFacts: PresetFacts = (samples) => {
  const facts: FidelityFact[] = [];
  for (const { profile, columns } of samples) {
    const returns = columns.column('daily_return');
    const sequence = columns.column('sequence_id');
    const absolute = returns.map(Math.abs);
    const abs1 = autocorrelationWithin(absolute, sequence, 1);
    const abs20 = autocorrelationWithin(absolute, sequence, 20);
    const abs100 = autocorrelationWithin(absolute, sequence, 100);
    const kurtosis = excessKurtosis(returns);
    facts.push(
      fact('calibrated_abs_autocorrelation_lag_1', 'Autocorrelation of |daily_return| at lag 1, within sequences', profile, '0.15–0.45', abs1, abs1 >= 0.15 && abs1 <= 0.45),
      fact('calibrated_abs_autocorrelation_lag_20', 'Autocorrelation of |daily_return| at lag 20, within sequences', profile, '≥ 0.1', abs20, abs20 >= 0.1),
      fact('calibrated_abs_autocorrelation_lag_100', 'Autocorrelation of |daily_return| at lag 100, within sequences', profile, '≥ 0.04', abs100, abs100 >= 0.04),
      fact(
        'calibrated_slow_decay',
        'Autocorrelation of |daily_return| at lag 100 over that at lag 20 (power-law-like, not exponential, decay)',
        profile,
        '≥ 0.3',
        abs100 / abs20,
        abs100 / abs20 >= 0.3,
      ),
      fact('calibrated_kurtosis', 'Excess kurtosis of daily_return', profile, '4–20', kurtosis, kurtosis >= 4 && kurtosis <= 20),
    );
    for (let k = 1; k <= LEVERAGE_LAGS; k++) {
      const leverage = leverageAt(returns, sequence, k);
      facts.push(
        fact(`calibrated_leverage_lag_${k}`, `Correlation of daily_return with |daily_return| ${k} day${k === 1 ? '' : 's'} later`, profile, '< 0', leverage, leverage < 0),
      );
    }
  }
  return facts;
};
