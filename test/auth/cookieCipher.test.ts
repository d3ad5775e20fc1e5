import { randomUUID } from 'node:crypto';
import test from 'ava';
import { createCookieCipher } from '../../shared/auth/cookieCipher.ts';
import { openSessionId, sealSessionId } from '../../api/auth/sessionCookie.ts';
import { parseConfig } from '../../shared/config.ts';

const SECRET = 'a-test-secret-that-is-at-least-32-characters';

test('a sealed value opens to the same bytes and never shows them', (t) => {
  const cipher = createCookieCipher(SECRET, 'purpose v1');
  const plaintext = Buffer.from('0123456789abcdef', 'utf8');
  const sealed = cipher.seal(plaintext);
  t.regex(sealed, /^[A-Za-z0-9_-]+$/);
  t.false(sealed.includes('0123456789abcdef'));
  t.deepEqual(cipher.open(sealed), plaintext);
});

test('sealing the same value twice gives different cookies (random IV)', (t) => {
  const cipher = createCookieCipher(SECRET, 'purpose v1');
  const plaintext = Buffer.from('same', 'utf8');
  t.not(cipher.seal(plaintext), cipher.seal(plaintext));
});

test('any changed character makes a sealed value unopenable', (t) => {
  const cipher = createCookieCipher(SECRET, 'purpose v1');
  const sealed = cipher.seal(Buffer.from(randomUUID(), 'utf8'));
  // The last character may carry padding bits only; every other one carries authenticated bits.
  for (let index = 0; index < sealed.length - 1; index += 1) {
    const replacement = sealed[index] === 'A' ? 'B' : 'A';
    t.is(cipher.open(`${sealed.slice(0, index)}${replacement}${sealed.slice(index + 1)}`), undefined, `position ${index}`);
  }
  t.is(cipher.open(sealed.slice(0, -2)), undefined);
  t.is(cipher.open(`${sealed}AA`), undefined);
});

test('a value sealed under another secret or for another purpose does not open', (t) => {
  const sealed = createCookieCipher(SECRET, 'purpose v1').seal(Buffer.from('x'));
  t.is(createCookieCipher(`${SECRET}-rotated`, 'purpose v1').open(sealed), undefined);
  t.is(createCookieCipher(SECRET, 'other purpose v1').open(sealed), undefined);
});

test('malformed input is refused without throwing', (t) => {
  const cipher = createCookieCipher(SECRET, 'purpose v1');
  for (const input of ['', 'a', 'not base64url!', '%00', 'A'.repeat(10_000), 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
    t.is(cipher.open(input), undefined);
  }
});

test('a session id round-trips through its cookie value', (t) => {
  const config = parseConfig({ NODE_ENV: 'test', SESSION_SECRET: SECRET });
  const id = randomUUID();
  const sealed = sealSessionId(config, id);
  t.is(openSessionId(config, sealed), id);
  t.is(openSessionId(parseConfig({ NODE_ENV: 'test', SESSION_SECRET: `${SECRET}-other` }), sealed), undefined);
});
