import { randomBytes } from 'node:crypto';

const API_KEY_PREFIX = 'bs_live_';
const API_KEY_SECRET_LENGTH = 32;
/** How much of the key is kept in the clear to identify it: `bs_live_` and four secret characters. */
const API_KEY_DISPLAY_PREFIX_LENGTH = 12;
export const API_KEY_PATTERN = /^bs_live_[A-Za-z0-9]{32}$/;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// 62 × 4 = 248: bytes at or above it are dropped, because `byte % 62` over all 256 values would favour
// the first eight characters (modulo bias).
const UNBIASED_BYTE_LIMIT = ALPHABET.length * Math.floor(256 / ALPHABET.length);

export interface GeneratedApiKey {
  /** The raw secret: shown once, never stored or logged. */
  readonly key: string;
  readonly keyPrefix: string;
}

export const generateApiKey = (): GeneratedApiKey => {
  let secret = '';
  while (secret.length < API_KEY_SECRET_LENGTH) {
    // A few spare bytes so that one draw almost always suffices (3 % of bytes are rejected).
    for (const byte of randomBytes(API_KEY_SECRET_LENGTH + 8)) {
      if (byte < UNBIASED_BYTE_LIMIT && secret.length < API_KEY_SECRET_LENGTH) {
        secret += ALPHABET.charAt(byte % ALPHABET.length);
      }
    }
  }
  const key = `${API_KEY_PREFIX}${secret}`;
  return { key, keyPrefix: key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH) };
};
