// A counter-based generator in the spirit of Random123 (Salmon et al. 2011): every draw is a hash of
// (run key, purpose, sequence, step, draw number), with nothing carried from one step to the next. So a
// subject's step draws the same numbers whatever happened before it, in its own sequence or any other:
// an event changes what it targets and nothing else, and a targeted sequence realigns with its
// counterfactual once the event ends (DECISIONS "Engine 3", matched counterfactuals). Only 32-bit integer
// arithmetic (Math.imul, shifts, xor), so every V8 process and thread produces the same bits.

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

export class CounterRng {
  private readonly k0: number;
  private readonly k1: number;
  private readonly k2: number;
  // The key of the current (sequence, step), and the draws taken within it.
  private s0 = 0;
  private s1 = 0;
  private counter = 0;
  // The polar method yields normals in pairs; the spare is kept only within one step.
  private spare = 0;
  private hasSpare = false;

  /** `key` is the run's (hashSeed of preset, profile, seed); `purpose` separates independent streams. */
  constructor(key: readonly [number, number, number, number], purpose: number) {
    const p = fmix32(Math.imul(purpose + 1, 0x9e3779b1) ^ key[3]);
    this.k0 = fmix32(key[0] ^ p);
    this.k1 = fmix32(key[1] + p);
    this.k2 = fmix32(key[2] ^ Math.imul(p, 0x27d4eb2f));
  }

  /** Points the generator at one step of one sequence (step 0: the subject's own draws at its start). */
  at(sequence: number, step: number): void {
    const h = fmix32(this.k0 ^ Math.imul(sequence, 0x9e3779b1));
    const g = fmix32((h + this.k1) ^ Math.imul(step, 0x85ebca6b));
    this.s0 = g;
    this.s1 = fmix32(g ^ this.k2);
    this.counter = 0;
    this.hasSpare = false;
  }

  nextUint32(): number {
    const c = (this.counter + 1) | 0;
    this.counter = c;
    // Two rounds: fmix32 of distinct counters are distinct, the second keyed round decorrelates steps.
    let x = (this.s0 + Math.imul(c, 0x9e3779b9)) | 0;
    x ^= x >>> 16;
    x = Math.imul(x, 0x85ebca6b);
    x ^= x >>> 13;
    x = Math.imul(x, 0xc2b2ae35);
    x ^= x >>> 16;
    x ^= this.s1;
    x ^= x >>> 16;
    x = Math.imul(x, 0x7feb352d);
    x ^= x >>> 15;
    x = Math.imul(x, 0x846ca68b);
    x ^= x >>> 16;
    return x >>> 0;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Standard normal variate, Marsaglia's polar method, the pair's second kept for the same step. */
  nextNormal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = this.nextFloat() * 2 - 1;
      v = this.nextFloat() * 2 - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const m = Math.sqrt((-2 * Math.log(s)) / s);
    this.spare = v * m;
    this.hasSpare = true;
    return u * m;
  }

  /** Exponential variate with the given mean, by inversion. */
  nextExponential(mean: number): number {
    return -mean * Math.log(1 - this.nextFloat());
  }
}
