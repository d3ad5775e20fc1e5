// Moment statistics over plain arrays, population (biased) estimators: on 100,000 interactions the
// difference from the unbiased ones is far below the facts' margins.

export function mean(xs: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i]!;
  return sum / xs.length;
}

function centralMoment(xs: ArrayLike<number>, m: number, k: number): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += (xs[i]! - m) ** k;
  return sum / xs.length;
}

export function skewness(xs: ArrayLike<number>): number {
  const m = mean(xs);
  return centralMoment(xs, m, 3) / centralMoment(xs, m, 2) ** 1.5;
}

/** Kurtosis minus 3, so a normal distribution scores 0. */
export function excessKurtosis(xs: ArrayLike<number>): number {
  const m = mean(xs);
  return centralMoment(xs, m, 4) / centralMoment(xs, m, 2) ** 2 - 3;
}

export function median(xs: ArrayLike<number>): number {
  const sorted = Float64Array.from(xs).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Pearson correlation of two equally long series. */
export function correlation(xs: ArrayLike<number>, ys: ArrayLike<number>): number {
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}

/**
 * Autocorrelation at `lag` over pairs that lie within one sequence: a sequence is one subject (an
 * account, a patient), and pairing the end of one with the start of the next would measure nothing real.
 * Mean and variance are the whole sample's, as for one long series.
 */
export function autocorrelationWithin(xs: ArrayLike<number>, sequence: ArrayLike<number>, lag: number): number {
  const m = mean(xs);
  const variance = centralMoment(xs, m, 2);
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i + lag < xs.length; i++) {
    if (sequence[i] !== sequence[i + lag]) continue;
    sum += (xs[i]! - m) * (xs[i + lag]! - m);
    pairs++;
  }
  return sum / pairs / variance;
}
