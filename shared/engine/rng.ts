// sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of state, only 32-bit integer
// add/xor/shift, so every V8 process and thread produces the same bits. The counter guarantees a period of
// at least 2^32 even from an unlucky seed, far more than any run draws.
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  // The polar method yields normals in pairs; keeping the second one halves the cost of normal variates.
  private spare = 0;
  private hasSpare = false;

  constructor(seed: readonly [number, number, number, number]) {
    this.a = seed[0] | 0;
    this.b = seed[1] | 0;
    this.c = seed[2] | 0;
    this.d = seed[3] | 0;
    // Discard the first outputs: related seeds (e.g. seed 1 and 2) otherwise start out correlated.
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  nextUint32(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const d = (this.d + 1) | 0;
    const t = (((a + b) | 0) + d) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    this.d = d;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 32 bits of resolution, plenty for simulation noise. */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Standard normal variate, Marsaglia's polar method. */
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
    // 1 - u lies in (0, 1], so the logarithm is finite.
    return -mean * Math.log(1 - this.nextFloat());
  }
}
