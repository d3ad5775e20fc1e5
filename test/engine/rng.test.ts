import test from 'ava';
import { hashSeed } from '../../shared/engine/hashSeed.ts';
import { MarkovChain } from '../../shared/engine/markovChain.ts';
import { Rng } from '../../shared/engine/rng.ts';

// sfc32 as commonly published (a closure over four words), as an independent reference.
function referenceSfc32(a: number, b: number, c: number, d: number): () => number {
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
}

test('Rng is sfc32: after its 15 discarded outputs it continues the reference sequence', (t) => {
  const seed: [number, number, number, number] = [0xdeadbeef, 0x12345678, 0x9abcdef0, 0x0badf00d];
  const reference = referenceSfc32(...seed);
  for (let i = 0; i < 15; i++) reference();
  const rng = new Rng(seed);
  for (let i = 0; i < 10_000; i++) t.is(rng.nextUint32(), reference());
});

test('Rng floats are uniform in [0, 1) and normals are standard', (t) => {
  const rng = new Rng(hashSeed('test', 'uniform', 1));
  const n = 200_000;
  let sum = 0;
  let min = 1;
  let max = 0;
  const buckets = new Array<number>(10).fill(0);
  for (let i = 0; i < n; i++) {
    const u = rng.nextFloat();
    sum += u;
    min = Math.min(min, u);
    max = Math.max(max, u);
    buckets[Math.floor(u * 10)]!++;
  }
  t.true(min >= 0 && max < 1);
  t.true(Math.abs(sum / n - 0.5) < 0.01);
  for (const count of buckets) t.true(Math.abs(count - n / 10) < n / 100);

  let s1 = 0;
  let s2 = 0;
  let beyond3 = 0;
  for (let i = 0; i < n; i++) {
    const z = rng.nextNormal();
    s1 += z;
    s2 += z * z;
    if (Math.abs(z) > 3) beyond3++;
  }
  t.true(Math.abs(s1 / n) < 0.02);
  t.true(Math.abs(s2 / n - 1) < 0.03);
  // P(|Z| > 3) = 0.27%.
  t.true(beyond3 > n * 0.0015 && beyond3 < n * 0.004);

  let e = 0;
  for (let i = 0; i < n; i++) e += rng.nextExponential(2);
  t.true(Math.abs(e / n - 2) < 0.05);
});

test('hashSeed is deterministic and separates presets, profiles and seeds', (t) => {
  t.deepEqual(hashSeed('finance', 'active_trader', 7), hashSeed('finance', 'active_trader', 7));
  const variants = [
    hashSeed('finance', 'active_trader', 7),
    hashSeed('finance', 'active_trader', 8),
    hashSeed('finance', 'balanced_investor', 7),
    hashSeed('healthcare', 'active_trader', 7),
    hashSeed('finance', 'active_trader', 4_294_967_295),
    hashSeed('finance', 'active_trader', 0),
    // The separator keeps concatenations apart.
    hashSeed('financea', 'ctive_trader', 7),
  ];
  t.is(new Set(variants.map((v) => v.join(','))).size, variants.length);
  for (const words of variants) for (const w of words) t.true(Number.isInteger(w) && w >= 0 && w <= 0xffffffff);
});

test('MarkovChain refuses a matrix that uses an unpublished transition or does not sum to one', (t) => {
  const states = ['A', 'B'];
  const allowed = { A: ['A', 'B'], B: ['B'] };
  t.notThrows(() => new MarkovChain(states, allowed, { A: { A: 0.5, B: 0.5 }, B: { B: 1 } }));
  t.throws(() => new MarkovChain(states, allowed, { A: { A: 1 }, B: { A: 0.1, B: 0.9 } }), {
    message: /B -> A is not published/,
  });
  t.throws(() => new MarkovChain(states, allowed, { A: { A: 0.5, B: 0.4 }, B: { B: 1 } }), { message: /sum to/ });
});

test('MarkovChain samples each row with its probabilities', (t) => {
  const chain = new MarkovChain(['A', 'B', 'C'], { A: ['A', 'B', 'C'] }, { A: { A: 0.2, B: 0.5, C: 0.3 } });
  const rng = new Rng(hashSeed('test', 'markov', 3));
  const counts = [0, 0, 0];
  const n = 100_000;
  for (let i = 0; i < n; i++) counts[chain.next(0, rng.nextFloat())]!++;
  t.true(Math.abs(counts[0]! / n - 0.2) < 0.01);
  t.true(Math.abs(counts[1]! / n - 0.5) < 0.01);
  t.true(Math.abs(counts[2]! / n - 0.3) < 0.01);
  t.is(chain.next(0, 0.9999999999), 2);
});
