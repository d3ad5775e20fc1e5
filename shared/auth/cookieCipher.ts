import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
// A fixed, public salt: the secret's entropy comes from SESSION_SECRET, the salt only separates this
// service's derivations from any other use of the same secret.
const HKDF_SALT = 'behavioral-simulation-service/cookies';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface CookieCipher {
  /** Encrypts and authenticates a value into a cookie-safe string (base64url of iv ‖ ciphertext ‖ tag). */
  readonly seal: (plaintext: Buffer) => string;
  /** The plaintext, or undefined for anything malformed, tampered with or sealed under another key. */
  readonly open: (sealed: string) => Buffer | undefined;
}

/**
 * AES-256-GCM under a key derived with HKDF-SHA256 from the server secret. `purpose` selects the key and
 * is bound as associated data, so a value sealed for one cookie (or a stream's webhook secret,
 * shared/streams/webhookSecretCipher.ts) is never accepted as another.
 */
export const createCookieCipher = (secret: string, purpose: string): CookieCipher => {
  const key = Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, purpose, 32));
  const aad = Buffer.from(purpose, 'utf8');

  const seal = (plaintext: Buffer): string => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
  };

  const open = (sealed: string): Buffer | undefined => {
    if (sealed.length > 8192 || !BASE64URL.test(sealed)) {
      return undefined;
    }
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) {
      return undefined;
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    } catch {
      return undefined;
    }
  };

  return { seal, open };
};
