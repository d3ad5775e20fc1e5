import test from 'ava';
import { CounterRng } from '../../shared/engine/counterRng.ts';
import { hashSeed } from '../../shared/engine/hashSeed.ts';

// Engine 3's generator: every draw a function of (run key, sequence, step, slot) alone.
const key = hashSeed('finance', 'balanced_investor', 42);

test('a draw depends only on (key, sequence, step, slot): not on the order or number of draws before it', (t) => {
  const a = new CounterRng(key);
  const b = new CounterRng(key);
  a.subject(7);
  a.at(3);
  const direct = [a.uint32(0), a.uint32(5), a.normal(2)];
  // Another subject and step first, other slots, in another order.
  b.subject(1);
  b.at(9);
  b.uniform(4);
  b.subject(7);
  b.at(3);
  b.normal(2);
  b.uint32(1);
  t.deepEqual([b.uint32(0), b.uint32(5), b.normal(2)], direct);
});

test('runs, subjects, steps and slots all change the draw', (t) => {
  const draw = (k: readonly [number, number, number, number], sequence: number, step: number, slot: number): number => {
    const rng = new CounterRng(k);
    rng.subject(sequence);
    rng.at(step);
    return rng.uint32(slot);
  };
  const base = draw(key, 1, 1, 0);
  t.not(draw(hashSeed('finance', 'balanced_investor', 43), 1, 1, 0), base);
  t.not(draw(key, 2, 1, 0), base);
  t.not(draw(key, 1, 2, 0), base);
  t.not(draw(key, 1, 1, 1), base);
});

test('uniforms are uniform and independent across slots, steps and subjects', (t) => {
  const rng = new CounterRng(key);
  const n = 200_000;
  const buckets = new Array<number>(16).fill(0);
  let sum = 0;
  // Products of centred pairs: slot 0 against slot 1 of a step, and slot 0 of consecutive steps and subjects.
  let slots = 0;
  let steps = 0;
  let subjects = 0;
  let previousStep = 0.5;
  const firstOfSubject: number[] = [];
  for (let i = 0; i < n; i++) {
    const sequence = Math.floor(i / 100) + 1;
    const step = (i % 100) + 1;
    rng.subject(sequence);
    rng.at(step);
    const u = rng.uniform(0);
    const v = rng.uniform(1);
    sum += u;
    buckets[Math.floor(u * 16)]!++;
    slots += (u - 0.5) * (v - 0.5);
    if (step > 1) steps += (u - 0.5) * (previousStep - 0.5);
    previousStep = u;
    if (step === 1) firstOfSubject.push(u);
  }
  for (let k = 1; k < firstOfSubject.length; k++) subjects += (firstOfSubject[k]! - 0.5) * (firstOfSubject[k - 1]! - 0.5);
  t.true(Math.abs(sum / n - 0.5) < 0.005);
  for (const count of buckets) t.true(Math.abs(count - n / 16) < n / 160, String(count));
  // Correlations (variance of a uniform is 1/12) within about 4 standard errors of 0.
  t.true(Math.abs((12 * slots) / n) < 0.01, `slots ${(12 * slots) / n}`);
  t.true(Math.abs((12 * steps) / n) < 0.01, `steps ${(12 * steps) / n}`);
  t.true(Math.abs((12 * subjects) / firstOfSubject.length) < 0.1, `subjects ${(12 * subjects) / firstOfSubject.length}`);
});

test('normals are standard: moments and tail shares of N(0, 1)', (t) => {
  const rng = new CounterRng(key);
  const n = 400_000;
  let s1 = 0;
  let s2 = 0;
  let s4 = 0;
  let beyond2 = 0;
  let beyond3 = 0;
  for (let i = 0; i < n; i++) {
    rng.subject(1 + (i >> 10));
    rng.at(i & 1023);
    const z = rng.normal(i & 3);
    s1 += z;
    s2 += z * z;
    s4 += z ** 4;
    if (Math.abs(z) > 2) beyond2++;
    if (Math.abs(z) > 3) beyond3++;
  }
  t.true(Math.abs(s1 / n) < 0.01);
  t.true(Math.abs(s2 / n - 1) < 0.01);
  t.true(Math.abs(s4 / n - 3) < 0.1);
  // P(|Z| > 2) = 0.0455, P(|Z| > 3) = 0.0027.
  t.true(Math.abs(beyond2 / n - 0.0455) < 0.002);
  t.true(Math.abs(beyond3 / n - 0.0027) < 0.0004);
});
