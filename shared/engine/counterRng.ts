// A counter-based generator in the spirit of Random123 (Salmon et al. 2011): every draw is a hash of
// (run key, sequence, step, slot), with nothing carried from one draw to the next. So a subject's step
// draws the same numbers whatever happened before it, in its own sequence or any other, and whichever of
// its draws a branch uses: an event changes what it targets and nothing else, and a targeted sequence
// realigns with its counterfactual once the event ends (docs/scenarios.md#the-counterfactual-guarantee).
// Only 32-bit integer arithmetic (Math.imul, shifts, xor) and Math.log/sqrt, so every V8 process and
// thread produces the same bits.

/** murmur3's fmix32 finaliser: a bijection of 32-bit words with full avalanche. */
function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9): a normal
// from one uniform, with no rejection loop, so each normal has a slot of its own.
const A1 = -3.969683028665376e1;
const A2 = 2.209460984245205e2;
const A3 = -2.759285104469687e2;
const A4 = 1.38357751867269e2;
const A5 = -3.066479806614716e1;
const A6 = 2.506628277459239;
const B1 = -5.447609879822406e1;
const B2 = 1.615858368580409e2;
const B3 = -1.556989798598866e2;
const B4 = 6.680131188771972e1;
const B5 = -1.328068155288572e1;
const C1 = -7.784894002430293e-3;
const C2 = -3.223964580411365e-1;
const C3 = -2.400758277161838;
const C4 = -2.549732539343734;
const C5 = 4.374664141464968;
const C6 = 2.938163982698783;
const D1 = 7.784695709041462e-3;
const D2 = 3.224671290700398e-1;
const D3 = 2.445134137142996;
const D4 = 3.754408661907416;
const TAIL = 0.02425;

function tail(p: number): number {
  const q = Math.sqrt(-2 * Math.log(p));
  return (((((C1 * q + C2) * q + C3) * q + C4) * q + C5) * q + C6) / ((((D1 * q + D2) * q + D3) * q + D4) * q + 1);
}

export class CounterRng {
  private readonly k0: number;
  private readonly k1: number;
  private readonly k2: number;
  // The current subject's key (hashed once per sequence), and the current step's.
  private subjectKey = 0;
  private stepKey = 0;

  /** `key` is the run's (hashSeed of preset, profile, seed): n is not in it, so runs are prefix-stable. */
  constructor(key: readonly [number, number, number, number]) {
    this.k0 = fmix32(key[0] ^ key[3]);
    this.k1 = fmix32(key[1] + Math.imul(key[3], 0x9e3779b1));
    this.k2 = fmix32(key[2] ^ 0x27d4eb2f);
  }

  /** Points the generator at a sequence (a subject); then `at` picks its step. */
  subject(sequence: number): void {
    this.subjectKey = fmix32(this.k0 ^ Math.imul(sequence, 0x9e3779b1)) ^ this.k1;
  }

  /** Points the generator at a step of the subject (0: the subject's own draws at its start). */
  at(step: number): void {
    this.stepKey = fmix32(this.subjectKey ^ Math.imul(step, 0x85ebca6b)) ^ this.k2;
  }

  /** The step's draw in `slot` (a small integer naming what it is for), 32 uniform bits. */
  uint32(slot: number): number {
    // SplitMix32 from the step's key: the slot-th multiple of the golden ratio, through fmix32. The step
    // keys themselves are fmix32 outputs, so no two steps or subjects share a run of draws.
    return fmix32((this.stepKey + Math.imul(slot + 1, 0x9e3779b9)) | 0) >>> 0;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  uniform(slot: number): number {
    return this.uint32(slot) / 4294967296;
  }

  /** Standard normal variate, by inversion of a uniform in (0, 1). */
  normal(slot: number): number {
    const p = (this.uint32(slot) + 0.5) / 4294967296;
    if (p < TAIL) return tail(p);
    if (p > 1 - TAIL) return -tail(1 - p);
    const q = p - 0.5;
    const r = q * q;
    return ((((((A1 * r + A2) * r + A3) * r + A4) * r + A5) * r + A6) * q) / (((((B1 * r + B2) * r + B3) * r + B4) * r + B5) * r + 1);
  }

  /** Exponential variate with the given mean, by inversion. */
  exponential(slot: number, mean: number): number {
    return -mean * Math.log(1 - this.uniform(slot));
  }
}
