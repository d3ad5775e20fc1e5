import test from 'ava';
import { digestApiKey } from '../../shared/auth/digestApiKey.ts';
import { API_KEY_PATTERN, generateApiKey } from '../../shared/auth/generateApiKey.ts';

test('a generated key is bs_live_ and 32 characters of [A-Za-z0-9], its prefix the first 12 characters', (t) => {
  for (let index = 0; index < 200; index += 1) {
    const { key, keyPrefix } = generateApiKey();
    t.regex(key, /^bs_live_[A-Za-z0-9]{32}$/);
    t.true(API_KEY_PATTERN.test(key));
    t.is(keyPrefix, key.slice(0, 12));
  }
});

test('generated keys do not repeat', (t) => {
  const keys = new Set(Array.from({ length: 5000 }, () => generateApiKey().key));
  t.is(keys.size, 5000);
});

test('every character of the alphabet is equally likely (no modulo bias)', (t) => {
  const counts = new Map<string, number>();
  for (let index = 0; index < 20_000; index += 1) {
    for (const character of generateApiKey().key.slice(8)) {
      counts.set(character, (counts.get(character) ?? 0) + 1);
    }
  }
  t.is(counts.size, 62);
  // `byte % 62` would make A–H (bytes 0–7 and 248–255) 25 % likelier than the rest; the expected count per
  // character is 10 323 with a standard deviation near 100, so 5 % either way is far outside chance.
  const expected = (20_000 * 32) / 62;
  for (const [character, count] of counts) {
    t.true(Math.abs(count - expected) / expected < 0.05, `${character} appeared ${count} times, expected about ${Math.round(expected)}`);
  }
});

test('the digest is a 32-byte SHA-256 that does not contain the key', (t) => {
  const { key } = generateApiKey();
  const digest = digestApiKey(key);
  t.is(digest.length, 32);
  t.deepEqual(digest, digestApiKey(key));
  t.false(digest.toString('latin1').includes(key.slice(8)));
});
