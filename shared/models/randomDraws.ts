import type { CounterRng } from '../engine/counterRng.ts';

// The random functions of the language, each a pure function of the addressed generator's slots
// (shared/engine/counterRng.ts): a call site owns SLOTS_PER_SITE slots from `base`, so its draws do not
// depend on which other call sites ran. Rejection samplers try a bounded number of times (a record's cost
// stays linear: docs/models.md, "Speed and safety") and fall back to the mean, with odds below 1e-12.

export const SLOTS_PER_SITE = 128;
const ATTEMPTS = 24;

/** log Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: relative error < 1e-13). */
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

export function uniform(rng: CounterRng, base: number, a: number, b: number): number {
  return a + (b - a) * rng.uniform(base);
}

/** An integer from a to b inclusive (a rounded up, b down); NaN when there is none. */
export function integer(rng: CounterRng, base: number, a: number, b: number): number {
  const lo = Math.ceil(a);
  const hi = Math.floor(b);
  if (!(hi >= lo)) return Number.NaN;
  return Math.min(hi, lo + Math.floor(rng.uniform(base) * (hi - lo + 1)));
}

export function normal(rng: CounterRng, base: number, mean: number, sd: number): number {
  return sd < 0 ? Number.NaN : mean + sd * rng.normal(base);
}

export function lognormal(rng: CounterRng, base: number, mu: number, sigma: number): number {
  return sigma < 0 ? Number.NaN : Math.exp(mu + sigma * rng.normal(base));
}

/** Exponential with the given rate (mean 1 / rate). */
export function exponential(rng: CounterRng, base: number, rate: number): number {
  return rate > 0 ? -Math.log(1 - rng.uniform(base)) / rate : Number.NaN;
}

/** Gamma(shape, scale) by Marsaglia and Tsang (2000); shape < 1 boosted by U^(1/shape). */
export function gamma(rng: CounterRng, base: number, shape: number, scale: number): number {
  if (!(shape > 0 && scale > 0)) return Number.NaN;
  const boost = shape < 1 ? Math.pow(rng.uniform(base + 2 * ATTEMPTS), 1 / shape) : 1;
  const k = shape < 1 ? shape + 1 : shape;
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const x = rng.normal(base + 2 * attempt);
    const t = 1 + c * x;
    if (t <= 0) continue;
    const v = t * t * t;
    const u = rng.uniform(base + 2 * attempt + 1);
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v * boost * scale;
  }
  return shape * scale;
}

/** Beta(a, b) as X / (X + Y) of two gammas, each on its own half of the site's slots. */
export function beta(rng: CounterRng, base: number, a: number, b: number): number {
  if (!(a > 0 && b > 0)) return Number.NaN;
  const x = gamma(rng, base, a, 1);
  const y = gamma(rng, base + SLOTS_PER_SITE / 2, b, 1);
  return x / (x + y);
}

/** Poisson(lambda): inversion below 10, Hörmann's PTRS (1993) above. */
export function poisson(rng: CounterRng, base: number, lambda: number): number {
  if (!(lambda >= 0) || lambda === Infinity) return Number.NaN;
  if (lambda < 10) {
    const u = rng.uniform(base);
    let p = Math.exp(-lambda);
    let cumulative = p;
    let k = 0;
    // The tail beyond 100 has probability below 1e-60 for lambda < 10.
    while (u > cumulative && k < 100) {
      k++;
      p *= lambda / k;
      cumulative += p;
    }
    return k;
  }
  const slam = Math.sqrt(lambda);
  const logLambda = Math.log(lambda);
  const b = 0.931 + 2.53 * slam;
  const a = -0.059 + 0.02483 * b;
  const invAlpha = 1.1239 + 1.1328 / (b - 3.4);
  const vr = 0.9277 - 3.6224 / (b - 2);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const u = rng.uniform(base + 2 * attempt) - 0.5;
    const v = rng.uniform(base + 2 * attempt + 1);
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (Math.log(v) + Math.log(invAlpha) - Math.log(a / (us * us) + b) <= -lambda + k * logLambda - logGamma(k + 1)) return k;
  }
  return Math.round(lambda);
}

export function bernoulli(rng: CounterRng, base: number, p: number): number {
  return rng.uniform(base) < p ? 1 : 0;
}

/**
 * The index drawn from weights (non-finite or negative weights count as 0, the rest normalised); all 0:
 * each index alike.
 */
export function choiceIndex(rng: CounterRng, base: number, weights: Float64Array): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    if (w > 0 && w < Infinity) total += w;
  }
  const u = rng.uniform(base);
  if (total === 0) return Math.floor(u * weights.length);
  let target = u * total;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    if (!(w > 0 && w < Infinity)) continue;
    if (target < w) return i;
    target -= w;
  }
  // Rounding left target a hair above the last weight: the last positive weight's index.
  for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0 && weights[i]! < Infinity) return i;
  return 0;
}
